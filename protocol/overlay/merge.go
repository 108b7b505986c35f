package overlay

import "github.com/peerlearn/peerlearn/types/ident"

// Merging overlays after a partition. A partition longer than the failure
// timeout makes each side declare the other failed and repair into a
// correct overlay of its own; nothing in join, repair or heartbeats ever
// crosses to the other side again, because no neighbour table names a
// node there. What does: the failed neighbours themselves. When a
// neighbour fails the node remembers it (up to 2L, for RememberTicks),
// and every MergeTicks or so (jittered, from Rand) it sends one
// remembered node that is not its neighbour now a Join for itself in all
// spaces, as if joining anew. If that node is dead the probe costs one
// message. If it is alive in this same overlay the discoveries stop next
// to the prober, at a node that already holds it, and nothing comes back.
// If it is alive in another overlay, there the discoveries stop at the
// prober's place, whose node links the prober and answers DiscoverReply;
// the prober adopts whatever is closer than its own ring neighbours, and
// the heartbeats' claims and Hints, the Links of the joins and the
// periodic repair (which now routes across the first cross links) splice
// the rings together the way concurrent joins are repaired. Every node
// whose neighbour fell on the other side probes, so the two overlays are
// stitched at many places at once.
//
// A remembered node is forgotten when it is a neighbour again or its
// memory expires; the node does not probe while it is joining (the join
// does the same work) or after it has left.

type memory struct {
	id    ident.Peer
	until int64
}

// remember records a failed neighbour as a node to probe later.
func (n *Node) remember(id ident.Peer) {
	if n.cfg.MergeTicks == 0 {
		return
	}
	n.forgetMemory(id)
	n.stats.Remembered++
	if len(n.remembered) >= 2*n.cfg.Spaces {
		n.remembered = n.remembered[1:]
	}
	n.remembered = append(n.remembered, memory{id: id, until: n.now + int64(n.cfg.RememberTicks)})
}

func (n *Node) forgetMemory(id ident.Peer) {
	for k, m := range n.remembered {
		if m.id == id {
			n.remembered = append(n.remembered[:k], n.remembered[k+1:]...)
			return
		}
	}
}

// scheduleProbe draws the tick of the next merge probe: MergeTicks/2 to
// 3*MergeTicks/2 from now, so that the nodes' probes spread out.
func (n *Node) scheduleProbe() {
	if n.cfg.MergeTicks > 0 {
		n.nextProbe = n.now + int64(n.cfg.MergeTicks/2) + int64(n.cfg.Rand.IntN(n.cfg.MergeTicks)) + 1
	}
}

// probeForMerge sends the periodic merge probe when it is due.
func (n *Node) probeForMerge() {
	if n.cfg.MergeTicks == 0 || n.now < n.nextProbe {
		return
	}
	n.scheduleProbe()
	k := 0
	for _, m := range n.remembered {
		if m.until > n.now && n.find(m.id) == nil {
			n.remembered[k] = m
			k++
		}
	}
	n.remembered = n.remembered[:k]
	if k == 0 || n.state != stateMember || len(n.peers) == 0 {
		return
	}
	// The oldest first, then to the back of the queue: each remembered
	// node is tried in turn.
	m := n.remembered[0]
	n.remembered = append(n.remembered[1:], m)
	n.stats.MergeProbes++
	n.send(Message{Type: MsgJoin, To: m.id, Roles: n.allSpaces()})
}

// Remembering returns how many of the failed neighbours the node
// remembers are not its neighbours again: nodes that may be alive in
// another overlay. The peer runtime uses it to decide whether a fresh
// registration with the signalling server is worth its cost (a merge
// probe's connection across a healed cut cannot be signalled over the
// overlay; see peer/netpeer servers.go).
func (n *Node) Remembering() int {
	k := 0
	for _, m := range n.remembered {
		if m.until > n.now && n.find(m.id) == nil {
			k++
		}
	}
	return k
}
