// Package netpeer runs one PeerLearn peer in real time: the FedLay
// overlay's NDMP node (package overlay) ticking on a wall-clock ticker,
// over WebRTC data channels (package rtc), bootstrapped through the
// signalling server (package signal). It is the shell around the peer
// core, node.Node (package peer/node): the one place with clocks, sockets
// and goroutines.
//
// One goroutine, the loop, owns the peer core, which owns the overlay
// node, the method core, the size estimate and the Registrar: the loop
// ticks it on a wall-clock ticker, steps it with the events the transport
// delivers (overlay and method messages, links opened and closed) and
// with what its goroutines bring back (a dial's registration, a finished
// training), and carries out its Ready: sends into the transport, the
// neighbour set to the transport (so that connections to former
// neighbours close after a grace period), dials, trainings on a goroutine
// of their own. The
// transport's own goroutines (pion's, the manager's) only ever hand the
// loop events through a channel. A status snapshot, refreshed by the loop,
// is served as JSON on a loopback HTTP endpoint for tests and tools.
//
// Leaving: cancelling Run's context makes the node run NDMP's leave
// protocol (its neighbours link to each other), lets the Leave messages go
// out, then closes every connection. A killed peer is noticed by its
// neighbours' heartbeats and repaired around; repairs that need new
// connections signal them through the overlay (rtc's routed signalling),
// so the signalling server is needed only for the first connection.
//
// Several signalling servers (Config.SignalURLs, servers.go): the peer
// registers with the first that answers in a shuffled order, and moves to
// a random other one about every BridgeEvery, joining through its
// contacts, so that peers of different servers merge into one overlay.
// With one server a peer registers with it again in the same way while
// its overlay remembers failed neighbours that have not come back
// (Config.BridgeAlone, BridgeWhenSplit by default), backing off while
// nothing changes: after a partition longer than rtc's grace that is the
// only way a merge probe's connection across can be signalled.
//
// Moving (Config.Move, move.go): when the learner's neighbourhood check
// finds its neighbourhood captured and the peer core decides to move, the
// peer gets a new key admitted (a newcomer's proof of work and rate
// limit), leaves its old place and builds its key-bound parts again
// (transport, registration, peer core, method core) under the new ID,
// its learner's model and round carried over.
package netpeer
