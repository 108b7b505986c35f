//go:build js && wasm

// Command bench is the Go-wasm side of scripts/bench-browser.sh: it
// exports PeerLearnBench.train(arch, images, labels, batch, ms), which
// trains PeerLearn's pure-Go engine (package nn, the code the browser peer
// trains with) on the given samples for about ms milliseconds and
// resolves to {sps, steps, samples, loss, ms}.
package main
