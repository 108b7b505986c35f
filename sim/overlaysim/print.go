package overlaysim

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
)

// Describe is the experiment setting in one line.
func (p Params) Describe() string {
	return fmt.Sprintf("L=%d (d<=%d), latency %s, seed %d", p.Spaces, 2*p.Spaces, p.LatencyString(), p.Seed)
}

// Title names a churn run after the paper's figure.
func (c Churn) Title() string {
	if c.Joins > 0 {
		return fmt.Sprintf("Fig. 8a: %d nodes join a correct %d-node overlay at once", c.Joins, c.N)
	}
	return fmt.Sprintf("Fig. 8b: %d of %d nodes fail at once", c.Fails, c.N)
}

// PrintChurn writes the run's correctness over time, one row every
// `every` of virtual time (and the last sample), and a summary.
func PrintChurn(w io.Writer, p Params, c Churn, every time.Duration) {
	fmt.Fprintf(w, "%s (%s)\n", c.Title(), p.Describe())
	fmt.Fprintf(w, "base overlay built by batches of concurrent joins in %.1f s virtual; t = 0 is the %s instant\n",
		c.BuildVirtual.Seconds(), map[bool]string{true: "join", false: "failure"}[c.Joins > 0])
	printTrace(w, c.Trace, every)
	per := c.Joins + c.Fails
	fmt.Fprintf(w, "control messages (all nodes, periodic repair included) since t=0: %d (%.1f per churned node)\n",
		c.Final().Control, float64(c.Final().Control)/float64(per))
}

func printTrace(w io.Writer, tr Trace, every time.Duration) {
	fmt.Fprintf(w, "%7s %11s %11s %6s %6s %12s %10s\n", "t_s", "correctness", "wrong_slots", "extra", "live", "control_msgs", "heartbeats")
	stride := max(1, int(every/max(tr.stride(), 1)))
	for i, s := range tr.Samples {
		if i%stride == 0 || i == len(tr.Samples)-1 {
			fmt.Fprintf(w, "%7.2f %11s %11d %6d %6d %12d %10d\n",
				s.T.Seconds(), fracN(s.Correctness, 4), s.WrongSlots, s.Extra, s.Live, s.Control, s.Heartbeats)
		}
	}
	m := tr.Min()
	fmt.Fprintf(w, "lowest correctness %s at t=%.2f s; ", fracN(m.Correctness, 4), m.T.Seconds())
	if tr.Correct {
		fmt.Fprintf(w, "exactly correct again at t=%.2f s\n", tr.Took.Seconds())
	} else {
		fmt.Fprintf(w, "NOT correct within %.1f s (final %s, %d wrong slots)\n", tr.Took.Seconds(), fracN(tr.Final().Correctness, 4), tr.Final().WrongSlots)
	}
	if tr.Held > 0 {
		fmt.Fprintf(w, "then exactly correct at %d of %d samples over the next %.1f s\n", tr.HeldCorrect, tr.Held, tr.HeldFor.Seconds())
	}
}

// stride is the sampling period of the trace.
func (t Trace) stride() time.Duration {
	if len(t.Samples) < 2 {
		return 0
	}
	return t.Samples[1].T - t.Samples[0].T
}

// buildTypes are the construction message types in the build table,
// with short column names.
var buildTypes = overlay.ConstructionTypes

var shortNames = map[overlay.MsgType]string{
	overlay.MsgJoin: "join", overlay.MsgDiscover: "discover", overlay.MsgDiscoverReply: "d_reply",
	overlay.MsgLink: "link", overlay.MsgHint: "hint", overlay.MsgLeave: "leave",
	overlay.MsgRepair: "repair", overlay.MsgRepairReply: "r_reply",
}

func shortName(t overlay.MsgType) string {
	if s, ok := shortNames[t]; ok {
		return s
	}
	return strings.ToLower(t.String())
}

// PrintBuilds writes the messages per node of each build (Fig. 8c).
func PrintBuilds(w io.Writer, p Params, bs []Build) {
	fmt.Fprintf(w, "Fig. 8c: overlays built by sequential joins from one node, each through a random member (%s; periodic repair off)\n", p.Describe())
	fmt.Fprintf(w, "%6s %11s %9s", "n", "correctness", "msgs/node")
	for _, t := range buildTypes {
		fmt.Fprintf(w, " %8s", shortName(t))
	}
	fmt.Fprintf(w, " %9s %9s\n", "hb/node", "virtual_s")
	for _, b := range bs {
		fmt.Fprintf(w, "%6d %11s %9.2f", b.N, fracN(b.Correctness, 4), b.MsgsPerNode())
		for _, t := range buildTypes {
			fmt.Fprintf(w, " %8.2f", float64(b.Sent[t])/float64(b.N))
		}
		fmt.Fprintf(w, " %9.1f %9.1f\n", b.HeartbeatsPerNode(), b.Virtual.Seconds())
	}
	fmt.Fprintln(w, "msgs/node counts every NDMP message but heartbeats (hb/node, per node over the whole build); columns per type are per node")
}

// PrintScale writes the scale run's phases.
func PrintScale(w io.Writer, p Params, r ScaleRun, every time.Duration) {
	fmt.Fprintf(w, "scale: %d nodes built by doubling batches of concurrent joins, then %d fail at once (%s)\n", r.N, r.Fails, p.Describe())
	fmt.Fprintf(w, "build: %.1f s wall (%.1f s CPU), %.1f s virtual, %d events (%.2f µs CPU/event)\n",
		r.BuildWall.Seconds(), r.BuildCPU.Seconds(), r.BuildVirtual.Seconds(), r.BuildEvents, float64(r.BuildCPU.Microseconds())/float64(max(r.BuildEvents, 1)))
	fmt.Fprintf(w, "churn: %d crashes, recovery simulated in %.1f s wall (%.1f s CPU)\n", r.Fails, r.ChurnWall.Seconds(), r.ChurnCPU.Seconds())
	printTrace(w, r.Recovery, every)
	fmt.Fprintf(w, "peak memory: maxrss %.0f MiB, runtime Sys %.0f MiB\n", float64(r.PeakRSS)/(1<<20), float64(r.PeakSys)/(1<<20))
}
