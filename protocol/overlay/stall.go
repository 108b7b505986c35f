package overlay

import "github.com/peerlearn/peerlearn/types/ident"

// Stalls: a neighbour failed for its silence that then speaks again was
// not dead but stalled (a busy browser tab whose page thread ran a long
// task, a laptop that slept a few seconds). The adaptive detector cannot
// learn that from its heartbeat intervals: a failure forgets them, and a
// neighbour that comes back is judged by the pool again, so the same
// stall fails it again, and every time its neighbours repair around it
// and close its links. So a node remembers, for StallMemoryTicks, the
// silence after which each such neighbour came back and does not fail it
// before that silence and FailureTicks more (at most MaxFailureTicks):
// the next stall of the same length is waited out. (Twice the silence
// was tried first: on the simulator's heavy-tailed latency, where the
// detector's false failures come back, it made the detection of real
// failures slower, 400 nodes at 1 s mean exponential latency recovering
// from 100 failures in 16.9-21.8 s against 15.5-23.2 without the memory,
// seeds 1-3; this floor 15.0-20.5.) Only a direct message lifts a failure's
// tombstone (tombstone.go), so only the neighbour itself, not hearsay
// about it, sets its floor; a neighbour that stalls on purpose to be
// waited for gets no more than the detector gives a wild path.

// stall is a neighbour that came back after a failure: it is not failed
// again before floor ticks of silence, until tick until.
type stall struct {
	id    ident.Peer
	floor int64
	until int64
}

// stalled notes that id, failed when last heard at tick heard, spoke
// again now.
func (n *Node) stalled(id ident.Peer, heard int64) {
	if n.cfg.PhiThreshold <= 0 || n.cfg.StallMemoryTicks <= 0 {
		return // the paper's fixed 3T: no memory
	}
	floor := min(n.now-heard+int64(n.cfg.FailureTicks), int64(n.cfg.MaxFailureTicks))
	n.stats.Stalls++
	for k, s := range n.stalls {
		if s.id == id {
			floor = max(floor, s.floor)
			n.stalls = append(n.stalls[:k], n.stalls[k+1:]...)
			break
		}
	}
	if len(n.stalls) >= n.cfg.MaxTombstones {
		n.stalls = n.stalls[1:] // forget the oldest
	}
	n.stalls = append(n.stalls, stall{id: id, floor: floor, until: n.now + int64(n.cfg.StallMemoryTicks)})
	if p := n.find(id); p != nil {
		p.floor = floor
	}
}

// stallFloor is the silence before which id is not failed, from its
// past stalls (0: none remembered).
func (n *Node) stallFloor(id ident.Peer) int64 {
	for _, s := range n.stalls {
		if s.id == id && s.until > n.now {
			return s.floor
		}
	}
	return 0
}

// expireStalls forgets those whose time is up (in order of their last
// stall, all lasting StallMemoryTicks, so expired ones are a prefix).
func (n *Node) expireStalls() {
	n.stalls = dropExpired(n.stalls, n.now, func(s stall) int64 { return s.until })
}
