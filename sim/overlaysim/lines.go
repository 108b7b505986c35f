package overlaysim

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
)

// The result lines: the last line of each `peerlearn sim overlay` mode,
// one "key=value" per measure. A time that was never reached (the overlay
// did not become correct within the limit) prints as NaN.

// Line is "overlay n=N join=K correctness=C converge_s=S" (Fig. 8a) or
// "overlay n=N fail=K correctness=C recover_s=S" (Fig. 8b): C the final
// correctness, S the seconds from the event until exactly correct.
func (c Churn) Line() string {
	key := "converge_s"
	if c.Fails > 0 {
		key = "recover_s"
	}
	return fmt.Sprintf("overlay n=%d %s correctness=%s %s=%s",
		c.N, c.Event(), frac(c.Final().Correctness), key, secs(c.Took, c.Correct)) + c.holdField()
}

// holdField is " held_correct=F" (the fraction of the samples taken
// during Params.Hold after the recovery that were exactly correct), or
// nothing without a hold.
func (t Trace) holdField() string {
	if t.Held == 0 {
		return ""
	}
	return fmt.Sprintf(" held_correct=%.3f", t.HeldFraction())
}

// Line is "overlay build n=N correctness=C msgs_per_node=M" (Fig. 8c).
func (b Build) Line() string {
	return fmt.Sprintf("overlay build n=%d correctness=%s msgs_per_node=%.1f", b.N, frac(b.Correctness), b.MsgsPerNode())
}

// Line is "overlay scale n=N correctness=C build_wall_s=B
// churn_recover_s=R peak_mem_mb=M": C the final correctness after the
// churn, R virtual seconds.
func (r ScaleRun) Line() string {
	var c overlay.Correctness
	if len(r.Recovery.Samples) > 0 {
		c = r.Recovery.Final().Correctness
	}
	return fmt.Sprintf("overlay scale n=%d correctness=%s build_wall_s=%.1f churn_recover_s=%s peak_mem_mb=%.0f",
		r.N, frac(c), r.BuildWall.Seconds(), secs(r.Recovery.Took, r.Recovery.Correct), float64(r.PeakMem())/(1<<20))
}

// frac formats a correctness with 3 decimals.
func frac(c overlay.Correctness) string { return fracN(c, 3) }

// fracN formats a correctness with d decimals, rounding down rather than
// up to 1: it shows 1.000 only when the overlay is exactly correct
// (0.9996 would round up).
func fracN(c overlay.Correctness, d int) string {
	s := strconv.FormatFloat(c.Fraction(), 'f', d, 64)
	if !c.OK() && strings.HasPrefix(s, "1") {
		s = "0." + strings.Repeat("9", d)
	}
	return s
}

func secs(d time.Duration, ok bool) string {
	if !ok {
		return "NaN"
	}
	return fmt.Sprintf("%.2f", d.Seconds())
}
