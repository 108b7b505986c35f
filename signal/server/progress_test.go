package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/signal"
)

// steppedClock replaces the server's summary clock; step moves it.
func steppedClock(ts *testServer) (step func(time.Duration)) {
	var mu sync.Mutex
	now := time.Unix(2_000_000, 0)
	ts.Server.mu.Lock()
	ts.Server.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ts.Server.mu.Unlock()
	return func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
}

// sendSummary signs s as identity b for the test task and sends it.
func sendSummary(t *testing.T, ts *testServer, c *signal.Client, b byte, s signal.Summary) {
	t.Helper()
	signal.SignSummary(identity(t, b), ts.tid, &s)
	if err := c.SendSummary(context.Background(), &s); err != nil {
		t.Fatal(err)
	}
}

// Peers' summaries make the task's accuracy (their median), reporting
// count and samples, on GET /tasks, GET /tasks/{id}/progress and
// /metrics; a peer's samples count at most MaxSamplesPerSecond for its
// time; a peer that leaves stops reporting and its samples stay.
func TestSummariesMakeTheTaskProgress(t *testing.T) {
	ts := startServer(t, nil)
	step := steppedClock(ts)
	c1, c2, c3 := dial(t, ts, 1), dial(t, ts, 2), dial(t, ts, 3)
	step(20 * time.Second)
	sendSummary(t, ts, c1, 1, signal.Summary{Seq: 1, Round: 4, Accuracy: 0.80, Samples: 10_000})
	sendSummary(t, ts, c2, 2, signal.Summary{Seq: 1, Round: 5, Accuracy: 0.90, Samples: 20_000})
	// A liar: perfect accuracy and a trillion samples 20 s after joining.
	sendSummary(t, ts, c3, 3, signal.Summary{Seq: 1, Round: 1 << 30, Accuracy: 1, Samples: 1 << 40})
	eventually(t, "three summaries counted", func() bool { return ts.Stats().SummariesCounted == 3 })

	l := getTasks(t, ts)
	info := l.Tasks[0]
	wantSamples := uint64(10_000 + 20_000 + 20*MaxSamplesPerSecond)
	if info.Reporting != 3 || info.Accuracy == nil || *info.Accuracy != 0.90 || info.Samples != wantSamples {
		t.Fatalf("task %+v (accuracy %v): want 3 reporting, median 0.90, %d samples (the liar's cut to 20 s at the limit)",
			info, info.Accuracy, wantSamples)
	}
	code, _, body := get(t, ts.httpURL()+"/metrics")
	if code != 200 || !strings.Contains(body, `peerlearn_signal_task_accuracy{name="test",task="`+ts.tid.String()+`"} 0.9`) ||
		!strings.Contains(body, `peerlearn_signal_summaries_total{result="counted"} 3`) {
		t.Errorf("/metrics lacks the task's accuracy or the summary count")
	}

	// c1 leaves: two report; its samples stay counted. The next point
	// of the history comes ProgressEvery later.
	c1.Close()
	eventually(t, "c1 gone", func() bool { return ts.Stats().Peers[ts.tid] == 2 })
	step(ProgressEvery)
	sendSummary(t, ts, c2, 2, signal.Summary{Seq: 2, Round: 9, Accuracy: 0.92, Samples: 50_000})
	eventually(t, "the fourth counted", func() bool { return ts.Stats().SummariesCounted == 4 })
	code, _, body = get(t, ts.httpURL()+"/tasks/"+ts.tid.Hex()+"/progress")
	var p TaskProgress
	if err := json.Unmarshal([]byte(body), &p); code != http.StatusOK || err != nil {
		t.Fatalf("progress: %d %v %s", code, err, body)
	}
	if len(p.History) != 2 || p.Now.Reporting != 2 || p.Now.Samples != wantSamples+30_000 || *p.Now.Accuracy != 0.96 {
		t.Fatalf("progress %+v (now accuracy %v): want 2 points, 2 reporting, %d samples, median (0.92+1)/2",
			p, *p.Now.Accuracy, wantSamples+30_000)
	}
	if h := p.History[0]; h.Reporting != 1 || h.Samples == 0 || h.Samples >= wantSamples {
		t.Errorf("first point %+v: want the first summary counted (whichever of the three came first) alone", h)
	}
	// After SummaryFresh without summaries nobody reports; the counted
	// samples stay.
	step(SummaryFresh + time.Second)
	if l := getTasks(t, ts); l.Tasks[0].Reporting != 0 || l.Tasks[0].Accuracy != nil || l.Tasks[0].Samples != wantSamples+30_000 {
		t.Errorf("after %v of silence: %+v", SummaryFresh, l.Tasks[0])
	}
	if code, _, _ := get(t, ts.httpURL()+"/tasks/"+strings.Repeat("ab", 32)+"/progress"); code != http.StatusNotFound {
		t.Errorf("progress of an unknown task: %d, want 404", code)
	}
}

// Summaries signed by another key or for another task, replayed, or
// sooner than MinSummaryInterval are refused (an error back, counted)
// and change nothing.
func TestSummariesRefused(t *testing.T) {
	ts := startServer(t, nil)
	step := steppedClock(ts)
	c := dial(t, ts, 1)
	step(time.Minute)

	forged := signal.Summary{Seq: 1, Accuracy: 0.5, Samples: 100}
	signal.SignSummary(identity(t, 2), ts.tid, &forged) // another peer's key
	if err := c.SendSummary(context.Background(), &forged); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, c, signal.CodeBadSignature)

	sendSummary(t, ts, c, 1, signal.Summary{Seq: 5, Accuracy: 0.5, Samples: 100})
	step(MinSummaryInterval / 2)
	sendSummary(t, ts, c, 1, signal.Summary{Seq: 6, Accuracy: 0.6, Samples: 200}) // too soon
	wantRefusal(t, c, signal.CodeRateLimited)
	step(MinSummaryInterval)
	sendSummary(t, ts, c, 1, signal.Summary{Seq: 5, Accuracy: 0.7, Samples: 300}) // replayed seq
	wantRefusal(t, c, signal.CodeRateLimited)

	st := ts.Stats()
	if st.SummariesCounted != 1 || st.SummariesRefused != 3 {
		t.Fatalf("counted %d refused %d, want 1 and 3", st.SummariesCounted, st.SummariesRefused)
	}
	if pt := st.Progress[ts.tid]; pt.Samples != 100 || *pt.Accuracy != 0.5 {
		t.Errorf("progress %+v: the refused summaries changed it", pt)
	}
}
