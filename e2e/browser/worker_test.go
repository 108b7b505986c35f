package browser

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// frameSpec is e2eSpec with longer rounds (100 steps of 32, every
// second; a tab cuts a round to its maxRoundMS, 600 ms by default): a tab
// trains most of the time, so what training does to the page's frames
// shows.
var frameSpec = strings.Replace(strings.Replace(e2eSpec, `"local_steps":10`, `"local_steps":100`, 1), `"period_ms":2000`, `"period_ms":1000`, 1)

// trainerStatus is peer.status().trainer (wasm/trainerview.go) with the
// learning counters it is checked against and what the page shows.
type trainerStatus struct {
	Where          string  `json:"where"`
	Kernels        string  `json:"kernels"`
	Note           string  `json:"note"`
	WorkerBatches  int64   `json:"worker_batches"`
	WorkerSamples  int64   `json:"worker_samples"`
	WorkerEvals    int64   `json:"worker_evals"`
	WorkerBusyMS   float64 `json:"worker_busy_ms"`
	Rounds         int     `json:"rounds"`
	SamplesTrained int64   `json:"samples_trained"`
	TrainSPS       float64 `json:"train_sps"`
	TrainLoss      float64 `json:"train_loss"`
	Accuracy       float64 `json:"accuracy"`
	Evals          int     `json:"evals"`
	Shown          string  `json:"shown"`
	ShownWhere     string  `json:"shown_where"`
	PageKernels    string  `json:"page_kernels"`
	PageGemms      uint64  `json:"page_gemms"`
	// Over trainWatchingFrames's rounds: the matrix products the page's
	// own Go instance ran, and the batches the worker trained.
	PageGemmsRun     uint64 `json:"-"`
	WorkerBatchesRun int64  `json:"-"`
}

func tabTrainer(tb *tab) (trainerStatus, error) {
	return evalJS[trainerStatus](tb, `(() => { const s = window.peerlearnPeer.status(), t = s.trainer || {}, l = s.learn || {}, e = document.getElementById("trainer-where");
		return Object.assign({}, t, {rounds: l.rounds || 0, samples_trained: l.samples_trained || 0, train_sps: l.train_sps || 0, train_loss: l.train_loss || 0, accuracy: l.accuracy || 0, evals: l.evals || 0, shown: e.textContent, shown_where: e.dataset.where || ""}); })()`)
}

// trainWatchingFrames joins a tab of srv's task with the URL query, waits
// for its first round, then measures the page's frames (the page's
// requestAnimationFrame deltas, peerlearnPerf) over the next `rounds`
// rounds: the longest gap between two frames while the tab trains. The
// caller closes the tab.
func trainWatchingFrames(t *testing.T, bin, name string, srv e2eServer, query string, rounds int) (frameStats, trainerStatus, *tab) {
	t.Helper()
	tb := joinTab(t, bin, name, srv, query, nil)
	var st trainerStatus
	var err error
	waitUntil(t, name+" trains a round", 90*time.Second, 200*time.Millisecond, func() string {
		if st, err = tabTrainer(tb); err == nil && st.Rounds >= 1 {
			return ""
		}
		return fmt.Sprintf("%+v %v", st, err)
	})
	if _, err := evalJS[bool](tb, `peerlearnPerf.reset(), true`); err != nil {
		t.Fatal(err)
	}
	r0, g0, b0 := st.Rounds, st.PageGemms, st.WorkerBatches
	waitUntil(t, fmt.Sprintf("%s trains %d more rounds", name, rounds), 120*time.Second, 200*time.Millisecond, func() string {
		if st, err = tabTrainer(tb); err == nil && st.Rounds >= r0+rounds {
			return ""
		}
		return fmt.Sprintf("%+v %v", st, err)
	})
	fs, err := evalJS[frameStats](tb, `peerlearnPerf.snapshot()`)
	if err != nil {
		t.Fatal(err)
	}
	st.PageGemmsRun, st.WorkerBatchesRun = st.PageGemms-g0, st.WorkerBatches-b0
	run := st
	// The status the page last drew (it redraws twice a second).
	waitUntil(t, name+" shows where it trains", 10*time.Second, 100*time.Millisecond, func() string {
		if st, err = tabTrainer(tb); err == nil && st.ShownWhere != "" {
			return ""
		}
		return fmt.Sprintf("%+v %v", st, err)
	})
	st.PageGemmsRun, st.WorkerBatchesRun = run.PageGemmsRun, run.WorkerBatchesRun
	t.Logf("%s: training in %s (%s), %d rounds: %d frames, longest gap %.0f ms, p99 %.0f ms, %d over 50 ms; worker %d batches, %d samples, %.0f ms busy; calibrated %.0f samples/s; loss %.3f, accuracy %.3f (%d evaluations); over the %d rounds watched: %d matrix products on the page's thread (%s), %d batches in the worker",
		name, st.Where, st.Shown, st.Rounds, fs.Frames, fs.MaxFrameMS, fs.P99FrameMS, fs.Over50, st.WorkerBatches, st.WorkerSamples, st.WorkerBusyMS, st.TrainSPS, st.TrainLoss, st.Accuracy, st.Evals,
		rounds, st.PageGemmsRun, st.PageKernels, st.WorkerBatchesRun)
	return fs, st, tb
}

// TestTrainerWorker: a tab trains in a Web Worker (wasm/trainer.go): the
// worker, running the page's own compiled peer.wasm with the SIMD
// kernels, trained every sample of the tab's published rounds (its count
// is at least the peer's) into a model that learns (evaluated above
// trainedAcc), the page says so, and its frames keep coming
// while it trains; the longest gap is measured and logged
// (bench-browser's frame_gap_ms is the same measure with the machine
// loaded); when the worker fails, the tab trains on its own thread and
// says why. With ?trainer=main the same tab trains on the page's thread
// and says so, and the worker trained nothing. That the worker keeps
// training off the page's thread is checked on the mechanism, which load
// cannot change: over the rounds watched the page's own Go instance ran
// no matrix product (f32.GemmCalls: no training step, evaluation or
// calibration there) while the worker trained batches, and with
// ?trainer=main the same count grows (so it sees page-thread training).
// The frame gaps of both are logged, not compared: on a loaded machine
// either can stall (bench-browser's frame_gap_ms measures them).
func TestTrainerWorker(t *testing.T) {
	bin := chromium(t)
	data := dataDir(t)
	_, sigBin, wasmDir := build(t, data)
	srv := startTaskServer(t, sigBin, wasmDir, frameSpec)

	fs, st, tb := trainWatchingFrames(t, bin, "worker-tab", srv, "shard=0/6", 3)
	if st.Where != "worker" || st.ShownWhere != "worker" || !strings.Contains(st.Shown, "Web Worker") {
		t.Errorf("trainer %+v: want the tab training in its worker, and saying so", st)
	}
	// The SIMD kernels run in the worker too (TestSIMDKernels checks the
	// page's thread).
	if st.Kernels != "simd128" || !strings.Contains(st.Shown, "SIMD") {
		t.Errorf("the worker's kernels %q (%q): want simd128", st.Kernels, st.Shown)
	}
	if st.SamplesTrained == 0 || st.WorkerSamples < st.SamplesTrained || st.WorkerBatches == 0 {
		t.Errorf("the worker trained %d samples in %d batches, the peer's rounds %d samples: want the worker to have trained every one",
			st.WorkerSamples, st.WorkerBatches, st.SamplesTrained)
	}
	if fs.Frames == 0 {
		t.Errorf("no frames drawn while the worker trained: %+v", fs)
	}
	if st.WorkerBatchesRun == 0 || st.PageGemmsRun != 0 {
		t.Errorf("over 3 rounds the worker trained %d batches and the page's thread ran %d matrix products: want batches in the worker and none on the page",
			st.WorkerBatchesRun, st.PageGemmsRun)
	}
	// What the worker trained is the peer's model: it learns. The page's
	// evaluations of it run in the worker too.
	waitUntil(t, "the worker-trained model is evaluated above chance, in the worker", 90*time.Second, 300*time.Millisecond, func() string {
		if st, err := tabTrainer(tb); err != nil || st.Evals == 0 || st.Accuracy < trainedAcc || st.WorkerEvals < int64(st.Evals) {
			return fmt.Sprintf("%+v %v", st, err)
		}
		return ""
	})
	// The worker fails (its Go runtime exited: web/worker.js posts
	// {type: "failed"}, dispatched here on the page's Worker object): the
	// tab goes on training on its own thread, and says why.
	before, err := tabTrainer(tb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := evalJS[bool](tb, `peerlearnPage.trainer.then(t => t.worker.dispatchEvent(new MessageEvent("message", {data: {type: "failed", message: "a test's failure"}}))), true`); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the tab trains on its own thread after its worker failed", 90*time.Second, 300*time.Millisecond, func() string {
		st, err := tabTrainer(tb)
		if err == nil && st.Where == "main" && strings.Contains(st.Note, "a test's failure") && st.ShownWhere == "main" && st.Rounds >= before.Rounds+2 {
			return ""
		}
		return fmt.Sprintf("%+v %v", st, err)
	})
	tb.close()

	fm, sm, tm := trainWatchingFrames(t, bin, "main-tab", srv, "shard=0/6&trainer=main", 3)
	tm.close()
	if sm.Where != "main" || sm.ShownWhere != "main" || !strings.Contains(sm.Note, "?trainer=main") || !strings.Contains(sm.Shown, "page's thread") {
		t.Errorf("trainer %+v: want the tab training on the page's thread, saying why", sm)
	}
	if sm.WorkerSamples != 0 || sm.WorkerEvals != 0 || sm.SamplesTrained == 0 {
		t.Errorf("main-thread tab: worker %d samples and %d evaluations, peer %d samples: want the page's thread to do it all", sm.WorkerSamples, sm.WorkerEvals, sm.SamplesTrained)
	}
	if sm.PageGemmsRun == 0 {
		t.Errorf("main-thread tab: %d matrix products counted on the page's thread (%s kernels) over 3 rounds it trained there: the count does not see page-thread training",
			sm.PageGemmsRun, sm.PageKernels)
	}
	t.Logf("longest frame gap while training: worker %.0f ms, page's thread %.0f ms", fs.MaxFrameMS, fm.MaxFrameMS)
}

// loadCPUs keeps n goroutines computing until the returned stop is
// called: the machine loaded, as a volunteer's busy laptop is, for
// bench-browser's frame gap.
func loadCPUs(n int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := uint64(1)
			for {
				select {
				case <-done:
					sink.Add(x)
					return
				default:
				}
				for range 1 << 16 { // a few hundred microseconds between checks
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
		}()
	}
	return func() { close(done); wg.Wait() }
}

var sink atomic.Uint64 // keeps loadCPUs' arithmetic from being optimised away

// benchFrameGap is bench-browser's frame_gap_ms: the longest gap between
// the page's frames while a tab trains frameSpec's rounds in its worker,
// with every CPU of the machine kept busy by a goroutine of this process;
// the same with ?trainer=main, for comparison; and, for what the loaded
// machine alone does to frames, the page's longest gap over as long
// without joining (idle).
func benchFrameGap(t *testing.T, bin, data string, rounds int) (worker, main, idle frameStats) {
	t.Helper()
	_, sigBin, wasmDir := build(t, data)
	srv := startTaskServer(t, sigBin, wasmDir, frameSpec)
	stop := loadCPUs(runtime.NumCPU())
	defer stop()
	t0 := time.Now()
	worker, st, tb := trainWatchingFrames(t, bin, "bench-worker-tab", srv, "shard=0/6", rounds)
	took := time.Since(t0)
	tb.close()
	if st.Where != "worker" {
		t.Fatalf("frame gap: the tab trains in %q (%s), not in its worker", st.Where, st.Note)
	}
	main, sm, tm := trainWatchingFrames(t, bin, "bench-main-tab", srv, "shard=0/6&trainer=main", rounds)
	tm.close()
	if sm.Where != "main" {
		t.Fatalf("frame gap: the ?trainer=main tab trains in %q", sm.Where)
	}
	ti := openTab(t, bin, "bench-idle-tab", srv.origin, fmt.Sprintf("%s/?task=%s", srv.origin, srv.tid.Hex()))
	defer ti.close()
	waitUntil(t, "the idle tab loads peer.wasm", 60*time.Second, 200*time.Millisecond, func() string {
		if ok, err := evalJS[bool](ti, `!!window.PeerLearn`); err != nil || !ok {
			return fmt.Sprintf("%v %v", ok, err)
		}
		return ""
	})
	if _, err := evalJS[bool](ti, `peerlearnPerf.reset(), true`); err != nil {
		t.Fatal(err)
	}
	// The idle page's frames over as much wall time as the worker tab
	// took to load, join and train. A real clock is what is measured
	// here: Chromium draws frames on its own clock, and there is no event
	// to wait for, only a window to watch (the bench's reference line,
	// not a check of a timing).
	time.Sleep(took)
	idle, err := evalJS[frameStats](ti, `peerlearnPerf.snapshot()`)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("idle tab over %v: %d frames, longest gap %.0f ms, p99 %.0f ms", took.Round(time.Second), idle.Frames, idle.MaxFrameMS, idle.P99FrameMS)
	return worker, main, idle
}
