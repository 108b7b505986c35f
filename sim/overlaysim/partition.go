package overlaysim

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/sim/overlaynet"
	"github.com/peerlearn/peerlearn/types/ident"
)

// rateWindow is the virtual time over which the steady message rates are
// counted.
const rateWindow = time.Minute

// Rate is the messages a node sends per minute, by kind.
type Rate struct {
	Heartbeats, Control float64
	// Probes are the merge probes (Joins to remembered nodes); they and
	// the discoveries they cause are in Control.
	Probes float64
}

// Total is all NDMP messages per node per minute.
func (r Rate) Total() float64 { return r.Heartbeats + r.Control }

// PartitionRun is a correct overlay of N nodes cut into two random halves
// for Cut, then healed: does it become one correct overlay again?
type PartitionRun struct {
	N   int
	Cut time.Duration
	// BuildVirtual is the virtual time the base overlay took to build.
	BuildVirtual time.Duration
	// AtHeal is the whole overlay's correctness at the heal instant;
	// HalvesCorrect whether each half was then a correct overlay of its
	// own (the partition outlasted the failure detector).
	AtHeal        overlay.Correctness
	HalvesCorrect bool
	// Trace runs from the heal until the overlay is correct (merged).
	Trace
	// Before is the steady rate on the correct overlay before the cut;
	// After the rate over the minute after the merge (every node then
	// still remembers the nodes it saw fail across the cut and probes
	// them: the merge's steady cost).
	Before, After Rate
	// During is the rate over the cut (failures, repairs, and the probes
	// that cannot cross yet).
	During Rate
}

// Partition builds a correct overlay of n nodes, measures its steady
// message rate for a minute, cuts it into two random halves for cut,
// heals the network and traces the correctness until the whole is one
// correct overlay again (or Params.Limit passes), then measures the rate
// for another minute.
func Partition(ctx context.Context, p Params, n int, cut time.Duration) (PartitionRun, error) {
	if n < 4 || cut <= 0 {
		return PartitionRun{}, fmt.Errorf("%w: partition of %d nodes for %v", ErrInvalid, n, cut)
	}
	c, built, err := base(ctx, p, n)
	if err != nil {
		return PartitionRun{}, err
	}
	r := PartitionRun{N: n, Cut: cut, BuildVirtual: built}
	r.Before = measureRate(c, rateWindow)

	live := c.Live()
	perm := rand.New(rand.NewPCG(p.Seed, 0xc07)).Perm(len(live))
	halves := [2][]ident.Peer{}
	for k, i := range perm {
		halves[k%2] = append(halves[k%2], live[i])
	}
	if err := c.Network().Partition(halves[0], halves[1]); err != nil {
		return r, err
	}
	bar := p.bar(fmt.Sprintf("partition for %v, virtual ms", cut), int(cut/time.Millisecond))
	during := startRate(c)
	for t := time.Duration(0); t < cut && ctx.Err() == nil; t += time.Second {
		c.RunFor(min(time.Second, cut-t))
		bar.Set(int64((t+time.Second)/time.Millisecond), 0)
	}
	bar.Finish()
	if err := ctx.Err(); err != nil {
		return r, err
	}
	r.During = during.since(c, cut)
	r.AtHeal = c.Correctness()
	r.HalvesCorrect = halfCorrect(c, halves[0]) && halfCorrect(c, halves[1])
	c.Network().Heal()
	r.Trace = recovery(ctx, p, newChecker(c), fmt.Sprintf("heal after %v", cut))
	if err := ctx.Err(); err != nil {
		return r, err
	}
	if r.Correct {
		r.After = measureRate(c, rateWindow)
	}
	return r, clusterErrors(c)
}

// halfCorrect reports whether the nodes of one side form a correct
// overlay of their own.
func halfCorrect(c *overlaynet.Cluster, side []ident.Peer) bool {
	all := c.Tables()
	t := make(map[ident.Peer]overlay.Table, len(side))
	for _, id := range side {
		t[id] = all[id]
	}
	return overlay.Check(t, c.Spaces()).OK()
}

// measureRate runs the cluster for d and returns the messages sent per
// live node per minute.
func measureRate(c *overlaynet.Cluster, d time.Duration) Rate {
	m := startRate(c)
	c.RunFor(d)
	return m.since(c, d)
}

// rateMark is the message counters at the start of a measurement.
type rateMark struct {
	sent   overlay.Counts
	probes uint64
}

func startRate(c *overlaynet.Cluster) rateMark { return rateMark{c.Sent(), probes(c)} }

// since returns the rate from m to now, d of virtual time later.
func (m rateMark) since(c *overlaynet.Cluster, d time.Duration) Rate {
	s1, p1 := c.Sent(), probes(c)
	per := float64(len(c.Live())) * d.Minutes()
	return Rate{
		Heartbeats: float64(s1[overlay.MsgHeartbeat]-m.sent[overlay.MsgHeartbeat]) / per,
		Control:    float64(s1.Total(overlay.ConstructionTypes...)-m.sent.Total(overlay.ConstructionTypes...)) / per,
		Probes:     float64(p1-m.probes) / per,
	}
}

func probes(c *overlaynet.Cluster) uint64 {
	var s uint64
	for _, id := range c.Live() {
		s += c.Node(id).Stats().MergeProbes
	}
	return s
}

// Title names the run.
func (r PartitionRun) Title() string {
	return fmt.Sprintf("a correct %d-node overlay cut in two halves for %v, then healed", r.N, r.Cut)
}

// Line is "overlay partition n=N cut_s=C merged=M merge_s=S
// msgs_per_node_min=B->A": M 1 if the overlay became one correct overlay
// within the limit, S the seconds from the heal until then, B and A the
// messages per node per minute before the cut and after the merge.
func (r PartitionRun) Line() string {
	merged := 0
	if r.Correct {
		merged = 1
	}
	return fmt.Sprintf("overlay partition n=%d cut_s=%s merged=%d merge_s=%s msgs_per_node_min=%.0f->%.0f",
		r.N, trimSecs(r.Cut), merged, secs(r.Took, r.Correct), r.Before.Total(), r.After.Total()) + r.holdField()
}

func trimSecs(d time.Duration) string { return fmt.Sprintf("%g", d.Seconds()) }

// PrintPartition writes the run: the state at the heal, the merge trace
// and the message rates.
func PrintPartition(w io.Writer, p Params, r PartitionRun, every time.Duration) {
	fmt.Fprintf(w, "%s (%s)\n", r.Title(), p.Describe())
	fmt.Fprintf(w, "base overlay built in %.1f s virtual; at the heal: correctness %s, each half a correct overlay of its own: %v; t = 0 is the heal\n",
		r.BuildVirtual.Seconds(), fracN(r.AtHeal, 4), r.HalvesCorrect)
	printTrace(w, r.Trace, every)
	for _, x := range []struct {
		name string
		r    Rate
	}{{"before the cut", r.Before}, {"during the cut", r.During}, {"after the merge", r.After}} {
		fmt.Fprintf(w, "messages per node per minute %s: %.1f (heartbeats %.1f, control %.1f, of which merge probes %.2f)\n",
			x.name, x.r.Total(), x.r.Heartbeats, x.r.Control, x.r.Probes)
	}
}
