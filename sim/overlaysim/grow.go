package overlaysim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/sim/overlaynet"
	"github.com/peerlearn/peerlearn/types/ident"
)

// grower joins nodes into a cluster in batches and waits, after each
// batch, for the overlay to be correct.
type grower struct {
	c   *overlaynet.Cluster
	k   *checker   // nil: made on first use
	rng *rand.Rand // picks each joiner's contact
	// batch returns the size of the next batch given the live count.
	batch func(live int) int
	// every is the correctness sampling period while waiting; limit the
	// longest wait for one batch.
	every, limit time.Duration
	bar          *progress.Bar
	// work, if set, is the progress a batch of k joins into live nodes
	// makes (default k).
	work func(live, k int) int64
	// afterBatch, if set, runs once the overlay is correct after each
	// batch (for per-size measurements).
	afterBatch func() error
}

// grow adds and joins ids. An empty cluster is founded by ids[0].
func (g *grower) grow(ctx context.Context, ids []ident.Peer) error {
	if g.k == nil {
		g.k = newChecker(g.c)
	}
	if len(g.c.Live()) == 0 && len(ids) > 0 {
		if _, err := g.c.AddNode(ids[0]); err != nil {
			return err
		}
		ids = ids[1:]
	}
	for len(ids) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		live := g.c.Live()
		k := min(max(g.batch(len(live)), 1), len(ids))
		if err := joinAll(g.c, ids[:k], live, g.rng); err != nil {
			return err
		}
		ids = ids[k:]
		if _, ok := runUntilCorrect(ctx, g.k, g.every, g.limit); !ok {
			if err := ctx.Err(); err != nil {
				return err
			}
			return fmt.Errorf("overlay not correct %v after a batch of %d joins into %d nodes: %+v",
				g.limit, k, len(live), g.k.check())
		}
		if g.afterBatch != nil {
			if err := g.afterBatch(); err != nil {
				return err
			}
		}
		if g.work != nil {
			g.bar.Add(g.work(len(live), k))
		} else {
			g.bar.Add(int64(k))
		}
	}
	return nil
}

// joinAll adds ids and makes each join, at once, through a member of
// live drawn with rng.
func joinAll(c *overlaynet.Cluster, ids, live []ident.Peer, rng *rand.Rand) error {
	for _, id := range ids {
		if _, err := c.AddNode(id); err != nil {
			return err
		}
		if err := c.Join(id, live[rng.IntN(len(live))]); err != nil {
			return err
		}
	}
	return nil
}

// runUntilCorrect runs virtual time, checking every `every`, until the
// overlay is correct (it returns the time that took and true) or limit
// has passed or ctx is done (false).
func runUntilCorrect(ctx context.Context, k *checker, every, limit time.Duration) (time.Duration, bool) {
	c := k.c
	start := c.Now()
	for {
		if k.check().OK() {
			return c.Now() - start, true
		}
		if c.Now()-start >= limit || ctx.Err() != nil {
			return c.Now() - start, false
		}
		c.RunFor(every)
	}
}
