package browser

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"
)

// profileStalls samples the tab's main thread with the DevTools CPU
// profiler (1 ms interval) for d and logs how busy it was, the top self
// times, and what runs during stalls: the functions on the stack
// (inclusive) in busy stretches of at least 50 ms. A diagnostic, run by
// TestBrowserPeers when PEERLEARN_PROFILE=1.
func profileStalls(t *testing.T, tb *tab, d time.Duration) {
	t.Helper()
	if _, err := chromedp.Call(tb.ctx, profiler.Enable, cdp.Empty{}); err != nil {
		t.Logf("profile: %v", err)
		return
	}
	chromedp.Call(tb.ctx, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 1000})
	if _, err := chromedp.Call(tb.ctx, profiler.Start, cdp.Empty{}); err != nil {
		t.Logf("profile: %v", err)
		return
	}
	time.Sleep(d) // the sampling window itself (a diagnostic run only with PEERLEARN_PROFILE=1)
	res, err := chromedp.Call(tb.ctx, profiler.Stop, cdp.Empty{})
	if err != nil || res.Profile == nil {
		t.Logf("profile: %v", err)
		return
	}
	p := res.Profile
	parent := map[int64]int64{}
	byID := map[int64]*profiler.ProfileNode{}
	for _, n := range p.Nodes {
		byID[n.ID] = n
		for _, c := range n.Children {
			parent[c] = n.ID
		}
	}
	self := map[string]time.Duration{}
	for i, s := range p.Samples {
		if i+1 < len(p.TimeDeltas) {
			self[byID[s].CallFrame.FunctionName] += time.Duration(p.TimeDeltas[i+1]) * time.Microsecond
		}
	}
	type nd struct {
		name string
		d    time.Duration
	}
	var selfs []nd
	var busy time.Duration
	for k, v := range self {
		selfs = append(selfs, nd{k, v})
		if k != "(idle)" && k != "(program)" {
			busy += v
		}
	}
	sort.Slice(selfs, func(i, j int) bool { return selfs[i].d > selfs[j].d })
	var top []string
	for _, e := range selfs[:min(15, len(selfs))] {
		top = append(top, fmt.Sprintf("%v %s", e.d.Round(time.Millisecond), e.name))
	}
	t.Logf("profile %s: main thread busy %v of %v; top self times: %s", tb.name, busy.Round(time.Millisecond), d, strings.Join(top, "; "))
	idle := func(id int64) bool {
		n := byID[id]
		name := n.CallFrame.FunctionName
		return name == "(idle)" || name == "(program)" || name == "(root)"
	}
	// Busy stretches: consecutive non-idle samples.
	type stretch struct{ from, to int }
	var st []stretch
	start := -1
	var dur time.Duration
	durs := make([]time.Duration, len(p.Samples))
	for i := range p.Samples {
		if i+1 < len(p.TimeDeltas) {
			durs[i] = time.Duration(p.TimeDeltas[i+1]) * time.Microsecond
		}
	}
	for i, s := range p.Samples {
		if !idle(s) {
			if start < 0 {
				start, dur = i, 0
			}
			dur += durs[i]
			continue
		}
		if start >= 0 && dur >= 50*time.Millisecond {
			st = append(st, stretch{start, i})
		}
		start = -1
	}
	incl := map[string]time.Duration{}
	var total time.Duration
	var longest []time.Duration
	for _, s := range st {
		var sd time.Duration
		for i := s.from; i < s.to; i++ {
			total += durs[i]
			sd += durs[i]
			seen := map[string]bool{}
			for id := p.Samples[i]; id != 0; id = parent[id] {
				name := byID[id].CallFrame.FunctionName
				if name != "" && !seen[name] {
					seen[name] = true
					incl[name] += durs[i]
				}
			}
		}
		longest = append(longest, sd)
	}
	slices.Sort(longest)
	slices.Reverse(longest)
	type kv struct {
		k string
		v time.Duration
	}
	var kvs []kv
	for k, v := range incl {
		kvs = append(kvs, kv{k, v})
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].v > kvs[j].v })
	var b strings.Builder
	fmt.Fprintf(&b, "profile %s, %v: %d busy stretches >= 50 ms (%v in all; longest %v)\n", tb.name, d, len(st), total, longest[:min(5, len(longest))])
	for _, e := range kvs[:min(25, len(kvs))] {
		fmt.Fprintf(&b, "  %6.1f%% %s\n", 100*float64(e.v)/float64(max(total, 1)), e.k)
	}
	t.Log(b.String())
}
