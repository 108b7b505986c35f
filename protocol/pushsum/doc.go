// Package pushsum estimates the number of peers of an overlay by
// push-sum (Kempe, Dobra and Gehrke, 2003), for the topology-aware
// initialisation's gain (theory/initgain: 1/‖v_steady‖ ≈ √n on the
// near-regular FedLay overlay) on real peers.
//
// Every peer holds a value s = 1 and a weight w, 1 at one peer (the
// leader) and 0 elsewhere, so Σs = n and Σw = 1 over the network. Each
// round a peer keeps one share of (s, w) and pushes an equal share to
// each of its neighbours; received shares are added. Mass is conserved,
// so s/w converges to n at every peer; sending to every neighbour makes
// the round the DecAvg averaging matrix (A + I, column-normalised), which
// mixes in a few rounds on an expander such as FedLay's overlay.
//
// No peer knows the network, so the leader is elected alongside: every
// peer starts as the leader of its own instance, and a message naming a
// smaller leader ID makes the receiver restart in that instance (s = 1,
// w = 0); shares of a larger leader's instance are dropped. Within the
// smallest ID's instance mass is conserved from the moment each peer
// joins it, so once that ID has reached everyone the estimates converge
// to n.
//
// A Node is a pure state machine (Tick, Step, Ready): no clock, no I/O,
// no goroutines; peer/netpeer drives it over the overlay's WebRTC links,
// as rtc KindApp frames told apart from the model protocols' by their
// first byte (Tag). Estimation ends in bounded time: a Node is Done when
// its estimate has stayed within Config.Tol over Config.Window rounds
// after at least Config.MinRounds, or after Config.MaxRounds. It keeps
// relaying afterwards, so that the mass it holds is not lost to the
// peers still estimating.
//
// Every decoded field is a claim: shares are bounded (0 <= s <=
// MaxMass, 0 <= w <= 1, finite) and each neighbour may send a bounded
// number per round. An attacker can still skew the estimate (inject or
// withhold mass, or name a leader ID nobody holds so that no peer gets an
// estimate); docs/SECURITY.md records that, and the peer clamps the gain
// it derives.
package pushsum
