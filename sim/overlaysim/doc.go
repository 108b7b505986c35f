// Package overlaysim runs the FedLay paper's NDMP experiments (Fig. 8) on
// simulated overlays: overlaynet.Cluster driving overlay.Node state machines
// in virtual time. It is the logic behind `peerlearn sim overlay`.
//
//   - Joins (Fig. 8a): k nodes join a correct n-node overlay at once,
//     each through a random live member; correctness is sampled until it
//     is 1 again.
//   - Failures (Fig. 8b): k of n nodes crash at once (no goodbye).
//   - Build and Sweep (Fig. 8c): an overlay grown by sequential joins from
//     one node; NDMP messages sent per node.
//   - Scale: a large overlay built by batches of concurrent joins, then a
//     fraction of it crashed; wall time and peak memory.
//
// Correctness is the paper's topology correctness (correct neighbours over
// all neighbours, overlay.Correctness.Fraction) of the live nodes'
// tables against the correct overlay on the live membership. "Correct
// again" means exactly correct (overlay.Correctness.OK: every slot holds
// its adjacent node, no extra neighbour), not merely a fraction that
// rounds to 1.000.
//
// Degree. Fig. 8a plots d = 6, 8, 10, 12 (L = 3..6); Figs. 8b and 8c do
// not say, and the paper's default elsewhere is d = 10, so L = 5 is the
// default (Params.Spaces).
//
// Latency. The paper gives only the mean one-way latency (350 ms in Fig.
// 8) and no distribution, so the distribution is a parameter (Params.Dist):
// "uniform" on [mean/2, 3·mean/2] (the default), "exp" (a floor of mean/5
// plus an exponential tail, mean as given) or "fixed". Each message draws
// its own delay, and links are reliable but not in order: the real peers
// carry overlay messages on an unordered data channel (peer/rtc
// ctlchannel.go), since on an ordered one (like the paper's TCP) one
// delayed message holds up all behind it, and under a heavy-tailed
// latency that alone kept recovery above 10 s (docs/RESULTS.md).
//
// Message counts. The paper counts NDMP messages per client to construct
// the overlay (Fig. 8c). Heartbeats and the periodic two-way repair are
// time-driven maintenance: their count grows with the run's (virtual)
// length, not with the joins. Build therefore runs the default NDMP
// configuration with the periodic repair off (Config.RepairTicks = 0;
// sequential joins into a correct overlay need none, Theorem 1) and
// counts every other NDMP message (overlay.ConstructionTypes, which
// includes the repairs that joins trigger), reporting heartbeats
// separately. The churn experiments run the full default configuration.
package overlaysim
