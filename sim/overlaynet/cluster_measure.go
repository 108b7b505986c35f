package overlaynet

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/peerlearn/peerlearn/sim/simnet"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Live returns the nodes neither crashed nor departed, in order of
// AddNode.
func (c *Cluster) Live() []ident.Peer {
	ids := make([]ident.Peer, 0, len(c.order))
	for _, id := range c.order {
		if !c.members[id].down {
			ids = append(ids, id)
		}
	}
	return ids
}

// Tables returns the neighbour table of every live node.
func (c *Cluster) Tables() map[ident.Peer]overlay.Table {
	t := make(map[ident.Peer]overlay.Table, len(c.members))
	for _, id := range c.Live() {
		t[id] = c.members[id].node.Table()
	}
	return t
}

// Correctness measures the live nodes' tables against the correct overlay
// on the live membership (overlay.Check): the ground truth the nodes
// themselves never see.
func (c *Cluster) Correctness() overlay.Correctness {
	return overlay.CheckAt(c.Tables(), c.cfg.Overlay.Spaces, c.Coordinate)
}

// Sent returns the messages sent by all nodes, by type, since the start
// (departed and crashed nodes included).
func (c *Cluster) Sent() overlay.Counts {
	var s overlay.Counts
	for _, m := range c.members {
		s = s.Add(m.node.Stats().Sent)
	}
	return s
}

// Dropped returns the routed messages dropped at the hop limit and the
// RouteTo messages that found no target, summed over all nodes.
func (c *Cluster) Dropped() (hops, undeliverable uint64) {
	for _, m := range c.members {
		st := m.node.Stats()
		hops += st.DroppedHops
		undeliverable += st.Undeliverable
	}
	return hops, undeliverable
}

// RunUntilCorrect runs virtual time, checking correctness every `every`,
// until the overlay is correct or `limit` has passed. It returns the
// virtual time that took (a multiple of every) and whether it got there.
func (c *Cluster) RunUntilCorrect(limit, every time.Duration) (time.Duration, bool) {
	start := c.Now()
	for {
		if c.Correctness().OK() {
			return c.Now() - start, true
		}
		if c.Now()-start >= limit {
			return c.Now() - start, false
		}
		c.RunFor(every)
	}
}

// Grow adds the nodes ids and joins them, batch at a time: each joins
// through a live member drawn with rng, all of a batch at once; then it
// waits (up to limit per batch, checking every 5 ticks) for the overlay
// to be correct before the next batch. With batch 1 it is a sequence of single joins into correct
// overlays. If the cluster is empty the first node founds the overlay.
func (c *Cluster) Grow(ids []ident.Peer, batch int, rng *rand.Rand, limit time.Duration) error {
	if batch < 1 {
		return fmt.Errorf("%w: batch %d", simnet.ErrInvalid, batch)
	}
	if len(c.Live()) == 0 && len(ids) > 0 {
		if _, err := c.AddNode(ids[0]); err != nil {
			return err
		}
		ids = ids[1:]
	}
	for len(ids) > 0 {
		k := min(batch, len(ids))
		live := c.Live()
		for _, id := range ids[:k] {
			if _, err := c.AddNode(id); err != nil {
				return err
			}
			if err := c.Join(id, live[rng.IntN(len(live))]); err != nil {
				return err
			}
		}
		ids = ids[k:]
		if _, ok := c.RunUntilCorrect(limit, 5*c.cfg.Tick); !ok {
			return fmt.Errorf("simnet: overlay not correct %v after a batch of %d joins (%d live): %+v",
				limit, k, len(c.Live()), c.Correctness())
		}
	}
	return nil
}

// Stalls sums the nodes' Stats().Stalls: failed neighbours that spoke
// again.
func (c *Cluster) Stalls() uint64 {
	var n uint64
	for _, m := range c.members {
		n += m.node.Stats().Stalls
	}
	return n
}
