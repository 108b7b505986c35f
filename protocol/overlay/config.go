package overlay

import (
	"fmt"
	"math/rand/v2"
)

// Config parameterises a Node. Times are in ticks: the node has no clock,
// its driver calls Tick at a fixed period (the defaults assume 100 ms).
type Config struct {
	// Spaces is L, the number of virtual ring spaces; a node has at most
	// 2L neighbours (degree d = 2L). 1..MaxSpaces.
	Spaces int
	// HeartbeatTicks is T: every T ticks a node sends a heartbeat to each
	// neighbour.
	HeartbeatTicks int
	// FailureTicks: a neighbour silent this long is considered failed (the
	// paper's 3T). Must exceed HeartbeatTicks.
	FailureTicks int
	// PhiThreshold turns on the adaptive failure detector (detector.go):
	// a neighbour is failed when the suspicion phi = -log10 P(its next
	// heartbeat is still to come | its heartbeat intervals so far)
	// reaches this value, but not before FailureTicks and always by
	// MaxFailureTicks. 0: a fixed FailureTicks, the paper's 3T.
	PhiThreshold float64
	// MaxFailureTicks caps the adaptive failure timeout. >= FailureTicks.
	MaxFailureTicks int
	// SuspectTicks: a neighbour silent this long is skipped as a next hop
	// by routing (it is probably dead; detection follows at
	// FailureTicks). Between HeartbeatTicks and FailureTicks.
	SuspectTicks int
	// RepairTicks is the period of the paper's two-way periodic repair:
	// every RepairTicks a node sends Neighbor_repair for itself in both
	// directions in every space. 0 disables it (not recommended: only
	// the periodic repair heals arbitrary concurrent churn).
	RepairTicks int
	// ChurnRepairTicks and ChurnWindowTicks: after a neighbour fails in a
	// space, and while a slot is empty, the node repeats the two-way repair
	// of that space every ChurnRepairTicks, for ChurnWindowTicks after
	// the failure (concurrent failures leave rings with gaps that one
	// repair round does not close; see "Periodic repair" in the package
	// documentation).
	ChurnRepairTicks int
	ChurnWindowTicks int
	// RetryTicks: a joining node re-sends its Join (to a neighbour if it
	// has one by then, else to the member it joined through) this often
	// while some space has not been discovered.
	RetryTicks int
	// TombstoneTicks: how long a node remembers a failed or departed
	// neighbour and refuses to re-adopt it on hearsay (a direct message
	// from a failed one revives it).
	TombstoneTicks int
	// MaxTombstones bounds that memory, and the stalls' (below); the
	// oldest is forgotten first.
	MaxTombstones int
	// StallMemoryTicks: with the adaptive detector, how long a node
	// remembers that a neighbour it failed spoke again (it had stalled),
	// and waits that silence and FailureTicks more before failing it
	// again (stall.go).
	// 0: not at all.
	StallMemoryTicks int
	// MergeTicks: about this often (jittered: 0.5x to 1.5x) a node sends
	// a Join for itself to one neighbour it remembers having failed, to
	// find and merge with the other side of a healed partition
	// (merge.go). 0 disables merging.
	MergeTicks int
	// RememberTicks: how long a failed neighbour is remembered for those
	// probes; it bounds the partitions that heal by themselves.
	RememberTicks int
	// Lookahead turns on neighbour-of-neighbour routing: heartbeats carry
	// the sender's neighbour set, and a routed message may go to the
	// neighbour whose own neighbours include a node closer to the target
	// (stop rule unchanged: routing still ends only where no neighbour is
	// closer). It halves the hops of the paper's plain greedy routing
	// (L = 5: 6.7 -> 3.4 at 400 nodes, 32 -> 12 at 10,000) for about 4 KiB
	// per node and 32 bytes per neighbour in each heartbeat.
	Lookahead bool
	// MaxHops: a routed message (Discover, Repair, Route) that has made
	// this many hops is dropped. 1..255.
	MaxHops int
	// MaxPayload bounds the payload this node accepts for Route; at most
	// the codec's MaxPayload.
	MaxPayload int
	// Rand is the node's only source of randomness (timer phases). It is
	// required: pass a seeded generator, one per node.
	Rand *rand.Rand
	// Admission turns on admitted placement and peer records
	// (records.go). Nil: coordinates are Coordinate(id, i) and IDs need
	// no record (the simulators and the scripts). The peer runtime sets
	// it.
	Admission *Admission
}

// DefaultConfig returns the defaults, for a 100 ms tick. Rand is left nil:
// the caller must supply one.
func DefaultConfig() Config {
	return Config{
		Spaces:           5,        // L = 5, degree 10 (the paper's d = 10)
		HeartbeatTicks:   5,        // T = 500 ms
		FailureTicks:     15,       // 3T = 1.5 s, as in the paper, and the floor of ...
		PhiThreshold:     5,        // ... the adaptive timeout: mean + 11.5 sd of the heartbeat intervals
		MaxFailureTicks:  200,      // 20 s, however wild the path
		SuspectTicks:     10,       // 2T: a missed heartbeat and then some
		RepairTicks:      30,       // periodic two-way repair every 3 s
		ChurnRepairTicks: 5,        // after a failure, repair that space every T ...
		ChurnWindowTicks: 30,       // ... for 3 s
		RetryTicks:       50,       // a join takes ~2 s at 350 ms latency; retry after 5 s
		TombstoneTicks:   100,      // remember the dead for 10 s
		MaxTombstones:    64,       // a few times 2L
		StallMemoryTicks: 3000,     // 5 min: a tab that stalled once is busy for a while
		MergeTicks:       100,      // a merge probe every 10 s on average, while the node remembers a failed neighbour ...
		RememberTicks:    36000,    // ... for an hour
		Lookahead:        true,     // see above; false is the paper's plain greedy routing
		MaxHops:          255,      // routes grow like sqrt(n): 110 hops seen at 10,000 nodes without lookahead
		MaxPayload:       16 << 10, // 16 KiB: WebRTC offers and answers fit
	}
}

// Validate reports the first field out of range.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
	}
	switch {
	case c.Spaces < 1 || c.Spaces > MaxSpaces:
		return bad("Spaces = %d, want 1..%d", c.Spaces, MaxSpaces)
	case c.HeartbeatTicks < 1:
		return bad("HeartbeatTicks = %d, want >= 1", c.HeartbeatTicks)
	case c.FailureTicks <= c.HeartbeatTicks:
		return bad("FailureTicks = %d, want > HeartbeatTicks (%d)", c.FailureTicks, c.HeartbeatTicks)
	case !(c.PhiThreshold >= 0 && c.PhiThreshold <= 300):
		return bad("PhiThreshold = %v, want 0..300", c.PhiThreshold)
	case c.PhiThreshold > 0 && c.MaxFailureTicks < c.FailureTicks:
		return bad("MaxFailureTicks = %d, want >= FailureTicks (%d)", c.MaxFailureTicks, c.FailureTicks)
	case c.SuspectTicks < c.HeartbeatTicks || c.SuspectTicks > c.FailureTicks:
		return bad("SuspectTicks = %d, want HeartbeatTicks..FailureTicks", c.SuspectTicks)
	case c.RepairTicks < 0:
		return bad("RepairTicks = %d, want >= 0", c.RepairTicks)
	case c.ChurnRepairTicks < 1:
		return bad("ChurnRepairTicks = %d, want >= 1", c.ChurnRepairTicks)
	case c.ChurnWindowTicks < 0:
		return bad("ChurnWindowTicks = %d, want >= 0", c.ChurnWindowTicks)
	case c.RetryTicks < 1:
		return bad("RetryTicks = %d, want >= 1", c.RetryTicks)
	case c.StallMemoryTicks < 0:
		return bad("StallMemoryTicks = %d, want >= 0", c.StallMemoryTicks)
	case c.MergeTicks < 0:
		return bad("MergeTicks = %d, want >= 0", c.MergeTicks)
	case c.MergeTicks > 0 && c.RememberTicks < 1:
		return bad("RememberTicks = %d, want >= 1", c.RememberTicks)
	case c.TombstoneTicks < 0:
		return bad("TombstoneTicks = %d, want >= 0", c.TombstoneTicks)
	case c.MaxTombstones < 0:
		return bad("MaxTombstones = %d, want >= 0", c.MaxTombstones)
	case c.MaxHops < 1 || c.MaxHops > 255:
		return bad("MaxHops = %d, want 1..255", c.MaxHops)
	case c.MaxPayload < 0 || c.MaxPayload > MaxPayload:
		return bad("MaxPayload = %d, want 0..%d", c.MaxPayload, MaxPayload)
	case c.Rand == nil:
		return bad("Rand is nil")
	case c.Admission != nil && len(c.Admission.Policy.ServerKey) != 32:
		return bad("Admission.Policy.ServerKey of %d bytes, want 32", len(c.Admission.Policy.ServerKey))
	case c.Admission != nil && c.Admission.MaxRecords < 0:
		return bad("Admission.MaxRecords = %d, want >= 0", c.Admission.MaxRecords)
	}
	return nil
}
