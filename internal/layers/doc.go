// Package layers names PeerLearn's architectural layers and checks the
// rule that holds them together: a package may import packages of its own
// layer or lower ones, never a higher one. layers_test.go runs the check
// over `go list ./...`, so `go test ./...` fails on a wrong-way import.
//
// From the bottom:
//
//	0 vocabulary   types/, internal/ (IDs, wire codec, kernels, reports)
//	1 engine       engine/ (nn, data, aggregate), gpu/ (libtorch backend)
//	2 protocol     protocol/ (overlay, mep, plexus, gossip, evalreq,
//	               selection, task), signal/ (bootstrap signalling)
//	3 theory       theory/ (topology metrics, initialisation gain)
//	4 peer         peer/ (learn, the runtime netpeer, rtc, demo)
//	5 simulators   sim/
//	6 edges        cmd/, wasm/, e2e/
//
// types/, engine/, protocol/, theory/ and the kernels and codecs of
// internal/ are pure (no sockets, clocks or goroutines of their own) and
// run under GOOS=js as well; the Makefile's test-wasm target (PURE_PKGS)
// tests them in node, with sim/simnet, peer/learn and peer/node (the peer
// runtime's pure core); pure.go lists them and checks that none imports
// the network, the file system, processes or signals. signal/ is the I/O
// at layer 2: the signalling client and server, which link none of the
// engine.
package layers
