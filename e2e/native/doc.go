// Package native holds PeerLearn's real-process end-to-end tests:
// cmd/signalserver and `peerlearn peer` processes built from this
// checkout (internal/proctest builds each binary once per run), talking
// real WebRTC over 127.0.0.1. A test sees the processes only as a user
// does: their flags, their /status JSON (peer/netpeer's exported Status)
// and their logs. The package has no code of its own outside its tests.
//
// Each test asserts a mechanism: the peers train, a killed peer is
// repaired around, the server can die, a partition heals, a frozen peer
// comes back, an attacker is clipped and dropped. It polls /status and
// ends as soon as it sees the mechanism, under bounds generous enough
// for a loaded 2-core machine. How well or how fast a method does, and
// any rate, is claimed on virtual time by the simulator and the cores'
// tests; each test's comment names them. Most tests wait on the peers'
// periods and timeouts rather than on the CPU, so they run in parallel,
// three at once unless go test's -parallel says otherwise (TestMain);
// TestE2ESaturatedCPU, which loads every core on purpose, runs alone
// before them.
//
// The tests need the MNIST files of `make data` ($PEERLEARN_DATA or the
// checkout's .data) where they train; without them those skip. All skip
// with -short.
package native
