package browser

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// clippedFrameSpec is frameSpec on the default task's rule: a tab of it
// runs the default defence (node.DefaultDefences), the neighbourhood
// check among it, which scores the tab's own model every round (and each
// neighbour's; here the tab is alone).
var clippedFrameSpec = strings.Replace(frameSpec, `"aggregator":"fedlay"`, `"aggregator":"clipped-fedlay"`, 1)

// A tab whose check is on scores in its trainer worker
// (learn.ParamsEvaluator), not on the page's thread: over the rounds
// watched the check observed every round, the worker trained, and the
// page's own Go instance ran no matrix product (f32.GemmCalls; the
// check's evaluations there would run some every round, as the
// `?trainer=main` control in TestTrainerWorker shows for training).
func TestCheckScoresInWorker(t *testing.T) {
	if !strings.Contains(clippedFrameSpec, "clipped-fedlay") {
		t.Fatal("clippedFrameSpec: the spec's aggregator was not replaced")
	}
	bin := chromium(t)
	data := dataDir(t)
	_, sigBin, wasmDir := build(t, data)
	srv := startTaskServer(t, sigBin, wasmDir, clippedFrameSpec)

	health := func(tb *tab) (int, error) {
		return evalJS[int](tb, `(() => { const l = window.peerlearnPeer.status().learn || {}, h = l.health; return h ? h.rounds : -1; })()`)
	}
	tb := joinTab(t, bin, "check-tab", srv, "shard=0/6", nil)
	defer tb.close()
	var h0 int
	waitUntil(t, "the tab's check observes a round", 90*time.Second, 200*time.Millisecond, func() string {
		var err error
		if h0, err = health(tb); err == nil && h0 >= 1 {
			return ""
		}
		return fmt.Sprintf("check rounds %d %v", h0, err)
	})
	st0, err := tabTrainer(tb)
	if err != nil {
		t.Fatal(err)
	}
	var st trainerStatus
	var h1 int
	waitUntil(t, "the tab's check observes 3 more rounds", 120*time.Second, 200*time.Millisecond, func() string {
		if h1, err = health(tb); err == nil && h1 >= h0+3 {
			st, err = tabTrainer(tb)
			if err == nil {
				return ""
			}
		}
		return fmt.Sprintf("check rounds %d %v", h1, err)
	})
	t.Logf("check rounds %d -> %d; worker batches %d -> %d, evaluations %d -> %d; page's matrix products %d -> %d",
		h0, h1, st0.WorkerBatches, st.WorkerBatches, st0.WorkerEvals, st.WorkerEvals, st0.PageGemms, st.PageGemms)
	if st.Where != "worker" {
		t.Fatalf("the tab trains in %q (%s), not in its worker", st.Where, st.Note)
	}
	if st.WorkerBatches == st0.WorkerBatches || st.WorkerEvals-st0.WorkerEvals < int64(h1-h0) {
		t.Errorf("over %d checked rounds the worker trained %d batches and evaluated %d models: want batches, and at least one evaluation a round",
			h1-h0, st.WorkerBatches-st0.WorkerBatches, st.WorkerEvals-st0.WorkerEvals)
	}
	if st.PageGemms != st0.PageGemms {
		t.Errorf("over %d checked rounds the page's thread ran %d matrix products: want none (the check scores in the worker)", h1-h0, st.PageGemms-st0.PageGemms)
	}
}
