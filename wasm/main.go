//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/internal/version"
	"github.com/peerlearn/peerlearn/peer/node"
)

func main() {
	// In a Web Worker that web/worker.js started as the page's trainer
	// (trainer.go): no page, no peer, one nn.Trainer.
	if js.Global().Get("PeerLearnTrainerMode").Truthy() {
		trainerMain()
		return
	}
	api := js.Global().Get("Object").New()
	api.Set("version", version.String)
	// Which kernels train here: "simd128" (WebAssembly SIMD) or "go"
	// (the pure-Go fallback, with kernelsNote saying why).
	api.Set("kernels", f32.Kernels())
	api.Set("defaultMoveMax", node.DefaultMoveMax) // `peerlearn peer`'s usual -health-moves, for the page's move box
	if err := f32.AccelError(); err != nil {
		api.Set("kernelsNote", err.Error())
	}
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
	api.Set("taskID", jsFunc("taskID", nil, taskIDOf))
	js.Global().Set("PeerLearn", api)
	// Tell the page the runtime is ready (it may have loaded us async).
	if f := js.Global().Get("onPeerLearnReady"); f.Type() == js.TypeFunction {
		f.Invoke(api)
	}
	select {}
}
