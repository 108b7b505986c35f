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
//	peer.onEvent(ev => ...)  // {type: "status"|"eval"|"state"|"progress"|"log"|"error"|"resume"|"moved", ...}
//	await peer.join()        // bootstrap through the signalling server
//	peer.status()            // a snapshot: ID, ring coordinates, neighbours, bytes, learning
//	await peer.downloadModel(format) // {name, bytes}: "plnn" (nn's versioned format, the default), "safetensors" or "onnx"
//	await peer.leave()       // NDMP's graceful leave
//
// options are documented on the options type. With health and
// healthMoves the peer moves away from a captured neighbourhood under a
// new key (move.go): peer.id and the status follow it, and a "moved"
// event ({id, previous, seed}) tells the page, which keeps the new
// seed. Panics in callbacks are recovered and reported to the page (an
// "error" event, a rejected promise). Computation yields to the event
// loop between batches where the code allows it (evaluation,
// calibration); a learning round runs
// without yielding, so the tab bounds its length (options.maxRoundMS).
//
// The same peer.wasm is also the tab's trainer: web/worker.js runs the
// page's compiled module in a Web Worker with PeerLearnTrainerMode set,
// and main then serves training and evaluation requests (trainer.go)
// instead of exporting PeerLearn. A peer given that worker (the trainer
// option) trains through it (workerbackend.go: learn.Config.NewBackend,
// one message a call) and evaluates in it, so its page's thread only
// draws and networks; without one it does both itself, as before.
package main
