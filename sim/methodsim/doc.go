// Package methodsim runs the decentralized-learning methods of the PENS
// thesis and of the Plexus paper with real local training (learn.Peer on
// nn models) and accounts for what each costs: bytes sent and received,
// training work, and the time, communication and resources a method
// needs to reach a target accuracy.
//
// # Drivers
//
//   - SelectionRun: per-peer neighbour selection (package selection:
//     Random, Greedy, EpsilonGreedy, PENS, RandomWeighted, Local, and
//     the simulator-only Oracle) as real peers run it: one method.PENS
//     core per peer (evalreq's evaluate-my-model requests answered by
//     real evaluations on the responder's training data), over CoreRun.
//     OwnAccuracy and OwnAccuracyOf measure every peer on the test set
//     of its own distribution (rotated for the rotated cluster).
//   - PlexusRun: Plexus as its real peers run it (method.Plexus, the
//     core peer/netpeer drives), driven by coreNet over a
//     simnet.Scheduler in virtual time.
//   - GossipRun: Gossip Learning (package gossip's Node), over a
//     simnet.Scheduler in virtual time.
//   - DPSGDRun: D-PSGD on a package gossip Schedule (OnePeerExp,
//     StaticGraph on a 10-regular graph): the method.DPSGD core real
//     peers run, given each peer's part of the schedule, over CoreRun.
//   - CoreRun: any method.Core (the cores real peers run for a task
//     spec) over a simnet.Scheduler in virtual time, FedLay's
//     (node.FedLay: its rounds are Jobs on the peer's compute) included;
//     dflsim's AsyncRun still drives learn.Peer's MEP itself, with the
//     overlay, joins, tiers and attacks of the FedLay figures.
//
// Local training and evaluations run on a Pool across cores; each peer
// trains with its own seeded source and every result is applied at a
// fixed point of virtual time (in peer order at the same instant), so a
// seed gives the same run on any number of cores.
//
// # Model of time
//
// Every peer has a Device (AssignDevices over Tiers; MobileTiers are the
// scenarios' three classes): a training speed in samples per second and
// a link bandwidth in bytes per second, the same up and down.
//
//   - Training: a run over k samples (local steps times batch, or epochs
//     times the shard) occupies the peer's compute for k / speed seconds.
//     A peer trains one model at a time; requests that arrive while it
//     is busy wait in order (Plexus's core holds one and drops it if its
//     round has ended by the time it would start). This device time is the "training
//     resources" of the Plexus paper, summed over peers.
//   - Transfers (Links): a message of b bytes ready at time t leaves the
//     sender once its uplink is free, taking b / bandwidth_sender; the
//     receiver's downlink takes it at b / bandwidth_receiver once free
//     (not before the sender starts); the transfer ends when both are
//     done, so it runs at the slower end's pace and each end carries one
//     transfer at a time (the paper's per-node bandwidth scheduler). It
//     arrives one propagation latency later: min + (max - min) x the two
//     peers' distance on a ring where each peer has a seeded place (a
//     stand-in for geographic round-trip traces). A message to oneself
//     is free and instant.
//   - Aggregation and mixing are instant (they are a few vector sums).
//   - Control messages (Plexus's round-complete notice, evaluation
//     answers) cost their encoded header size and the latency.
//
// Plexus, Gossip Learning, D-PSGD and the selection policies run as
// events on the scheduler; their state machines tick every Tick
// (100 ms). In D-PSGD a peer starts round t+1 when its round-t model is
// trained and every model it mixes has arrived (no global barrier, so a
// fast peer runs ahead where the schedule lets it, and its models queue
// on the links before a slow peer's); round t is complete, and
// measured, once the last peer holds its round-t model. A selection
// peer starts its next round as soon as its training ends, and waits
// for its candidates' answers and its neighbours' models at most the
// run's Timeout; round t is complete once the last peer holds its
// round-t model, and each peer is measured on the round-t model it held
// when it finished the round (it may be ahead by then).
//
// # Accounting
//
// A Ledger holds one Account per peer: bytes and messages sent and
// received (headers as the packages' codecs encode them, plus 4 bytes a
// parameter), models among them, trainings, samples trained, device
// training time and samples evaluated for others. Runs record a Curve of
// Points (round, virtual time, total bytes sent, total training time,
// accuracy); Curve.Reach interpolates the cost of reaching a target
// accuracy (time-, communication- and resources-to-accuracy) and Compare
// divides the best baseline's cost by a method's, metric by metric.
package methodsim
