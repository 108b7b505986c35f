package overlay

// Deferred discoveries. With concurrent joins a Neighbor_discovery can
// stop at a node that is itself still joining (or has just lost an
// adjacent node): no neighbour it knows is closer to the newcomer, but it
// does not know its own adjacent nodes in that space yet, so it cannot
// answer, and answering "we two form the ring" would be wrong. It keeps
// the message and resumes routing it once both of its slots in the space
// are filled (it may then forward it), or after RetryTicks/2 answers with
// its best guess, flagged as such (the joiner then verifies with a repair
// round). The queue is bounded; a dropped request is retried by the
// joiner.

type pending struct {
	m     Message
	until int64
}

const maxPending = 16

// postpone queues discovery m; false if the queue is full.
func (n *Node) postpone(m Message) bool {
	for _, w := range n.waits {
		if w.m.Origin == m.Origin && w.m.Space == m.Space {
			return true // a retry of a request already waiting
		}
	}
	if len(n.waits) >= maxPending {
		return false
	}
	n.waits = append(n.waits, pending{m: m, until: n.now + int64(n.cfg.RetryTicks/2)})
	return true
}

// answerPending resumes the deferred discoveries that can go on now, and
// answers those whose time is up.
func (n *Node) answerPending() {
	if len(n.waits) == 0 {
		return
	}
	waits := n.waits
	n.waits = nil
	for _, w := range waits {
		space := int(w.m.Space)
		switch {
		case n.slots[space][Pred] != nil && n.slots[space][Succ] != nil:
			n.discover(w.m)
		case n.now >= w.until:
			n.answerDiscover(w.m.Origin, space, true)
		default:
			n.waits = append(n.waits, w)
		}
	}
}
