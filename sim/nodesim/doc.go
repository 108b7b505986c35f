// Package nodesim runs the real peer core, node.Node (peer/node), on
// simnet's virtual time: N peers, each ticked every Tick with its own
// phase, their Readys carried out over a simnet.Network (latency, loss,
// partitions, crashes) as netpeer carries them out over WebRTC, and a
// signalling server played in memory (a registration's welcome lists a
// few live peers as contacts). It is the simulator's driver of the same
// decisions a real peer makes (joins, repairs, re-bootstraps and the
// Registrar's split checks, the size estimate, a method core when the
// peers learn), so claims made on a few real processes can be checked
// here deterministically, at fixed seeds, with many peers, in seconds.
//
// What the transport does that the core does not see is modelled
// simply: the first message between two peers opens their link (LinkUp
// on both sides, as rtc's connection); a crashed peer's links close
// LinkTimeout later (rtc's ICE timeout); a partition keeps links up
// (their messages are lost) as a real one does until rtc's grace; a
// node.Deny closes the link and refuses it for its time, as rtc's
// Manager.Deny; a training takes Config.TrainTime. A link is opened
// only where rtc could signal it: through the server between a peer and
// its welcome's contacts during the bootstrap window after a
// registration (Config.BootstrapWindow), or through the overlay between
// two peers that each have an open link (a route between them is not
// checked), and never by a message in flight from a stopped peer. A
// frozen peer (Freeze: a stopped process) neither ticks nor hears, and
// gets its links' closes when it thaws.
package nodesim
