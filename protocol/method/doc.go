// Package method is the one interface through which a runtime drives a
// decentralized learning method: a sans-I/O Core per peer (no
// goroutines, clocks or sockets). The runtime gives it the peers it may
// talk to (SetPeers: the overlay's neighbours on a real peer, the
// simulated topology's in methodsim), time (Tick), messages (Step: the
// header as the method's codec encodes it and the model payload) and
// finished trainings (Trained); it takes out what to send and what to
// train (Ready). The real peer (peer/netpeer, native and browser) and
// the simulator (sim/methodsim) run the same Core, on real and on
// virtual time, so what a simulation shows of a method is what its real
// peers do.
//
// Cores: Gossip (Gossip Learning, package gossip's Node), DPSGD (D-PSGD
// on the overlay graph, gossip's RoundNode), PENS (the PENS family of
// selection policies, package selection, with evalreq's polls and
// responder) and Plexus (package plexus's Peer, its membership view
// pushed to the overlay's neighbours as digests). FedLay's MEP is a Core
// too (peer/node's FedLay over learn.Peer): it aggregates inside its
// training, so it hands out each round as a Train's Job. In the
// simulator, GossipRun, PlexusRun, DPSGDRun (the DPSGD core with a
// schedule's mixing, gossip.NodeSchedule), SelectionRun (the PENS core,
// its policies' choices observed through PENSConfig.OnAverage) and
// CoreRun drive these cores; no method keeps simulator-only round
// logic.
package method
