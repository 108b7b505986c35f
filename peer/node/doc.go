// Package node is the peer runtime's pure core, grown one decision at a
// time out of peer/netpeer (issue #23): state machines that the shell
// (netpeer: the ticker, the event loop, the rtc Manager, the signalling
// client, the training goroutines) feeds with what it observes and whose
// answers it carries out. Nothing here has a goroutine, a clock, a socket
// or a random source of its own: time comes in Facts, randomness from a
// seeded generator the shell passes in, so the same inputs give the same
// decisions, in the simulator as on a real peer. Golden datadriven
// scripts in testdata/ cover each decision.
//
// Node (node.go) is the core the shell drives, in the style of etcd's
// RawNode: Step(event), Tick(now), Ready(). It owns the overlay node, the
// method core (Method, method.go: every method, FedLay's MEP and its
// guard included; the trainings it hands out; the evaluations' schedule
// and the target, evaluation.go), the network-size estimate and init
// gain (sizer.go), the Registrar and the admission token's renewal, and
// returns everything it wants done (overlay sends, push-sum shares,
// routes, the neighbour set, dials, registration decisions, the token to
// present, denials, model sends, a training, an evaluation) in a Ready;
// its scripts are testdata/node-*.txt, a few Nodes on an in-memory
// network. sim/nodesim runs it on simnet's virtual time.
//
// Its parts: the Registrar (registrar.go), which decides when a peer
// registers with a signalling server again (re-bootstrap, bridge and
// split suspicion, admission renewal) and what it does with the
// registration it gets; and the Guard (guard.go), which counts what the
// robust aggregation did to each neighbour's models and says which
// repeat offender to drop and when to let it back; FedLay
// (fedlay.go), FedLay's Model Exchange Protocol with that guard as a
// method.Core, so that one driver runs every method; and the move
// decision (move.go): when the neighbourhood check finds the
// neighbourhood captured, whether the peer takes a new place (a new
// admitted key), within bounds, and what its new core carries over.
package node
