//go:build js && wasm

// Command wasm is the browser peer of PeerLearn (GOOS=js GOARCH=wasm): the
// same peer code as `peerlearn peer` (package netpeer: the FedLay overlay
// over the browser's WebRTC through pion's browser wrapper, MEP learning
// with package learn) running in a tab.
//
// It exports one value to JavaScript, PeerLearn, whose one constructor
// newPeer(options) returns a peer object:
//
//	const peer = PeerLearn.newPeer({signalURL, task, dataURL, ...}) // an Error if options are bad
//	peer.onEvent(ev => ...)  // {type: "status"|"eval"|"state"|"progress"|"log"|"error", ...}
//	await peer.join()        // bootstrap through the signalling server
//	peer.status()            // a snapshot: ID, ring coordinates, neighbours, bytes, learning
//	await peer.downloadModel() // {name, bytes}: the model in nn's versioned format
//	await peer.leave()       // NDMP's graceful leave
//
// options are documented on the options type. Panics in callbacks are
// recovered and reported to the page (an "error" event, a rejected
// promise). Computation yields to the event loop between batches where
// the code allows it (evaluation, calibration); a learning round runs
// without yielding, so the tab bounds its length (options.maxRoundMS).
package main

import (
	"syscall/js"

	"github.com/peerlearn/peerlearn/internal/version"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("version", version.String)
	api.Set("newPeer", jsFunc("newPeer", nil, func(_ js.Value, args []js.Value) any {
		var o js.Value
		if len(args) > 0 {
			o = args[0]
		}
		opts, err := parseOptions(o)
		if err != nil {
			return jsError(err) // Go cannot throw: the caller checks instanceof Error
		}
		p, err := newBrowserPeer(opts)
		if err != nil {
			return jsError(err)
		}
		return p.jsObject()
	}))
	js.Global().Set("PeerLearn", api)
	// Tell the page the runtime is ready (it may have loaded us async).
	if f := js.Global().Get("onPeerLearnReady"); f.Type() == js.TypeFunction {
		f.Invoke(api)
	}
	select {}
}
