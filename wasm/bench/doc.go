//go:build js && wasm

// Command bench is the Go-wasm side of scripts/bench-browser.sh: it
// exports PeerLearnBench.train(arch, images, labels, batch, ms), which
// trains PeerLearn's pure-Go engine (package nn, the code the browser peer
// trains with) on the given samples for about ms milliseconds and
// resolves to {sps, steps, samples, loss, ms}, and
// PeerLearnBench.keygen(spaces, ms), which runs the eclipse grinder's
// per-key work (sim/eclipse's KeyRate) for about ms milliseconds and
// resolves to {keys, ms, keysPerS, spaces}.
package main
