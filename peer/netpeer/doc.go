// Package netpeer runs one PeerLearn peer in real time: the FedLay
// overlay's NDMP node (package overlay) ticking on a wall-clock ticker,
// over WebRTC data channels (package rtc), bootstrapped through the
// signalling server (package signal). It is the one place with clocks
// and goroutines around the pure state machines.
//
// One goroutine, the loop, owns the overlay node: it ticks it, steps it
// with the messages the transport delivers, flushes what it wants sent
// into the transport and tells the transport the neighbour set (so that
// connections to former neighbours close after a grace period). The
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
package netpeer
