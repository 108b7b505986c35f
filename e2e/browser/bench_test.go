package browser

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/peerlearn/peerlearn/sim/eclipse"
)

type benchRun struct {
	Arch    string  `json:"arch"`
	Engine  string  `json:"engine"`
	SPS     float64 `json:"sps"`
	Steps   int     `json:"steps"`
	Loss    float64 `json:"loss"`
	Backend string  `json:"backend"`
	Error   string  `json:"error"`
}

// benchKeygen is the eclipse grinder's key-generation rate on the page
// (sim/eclipse's KeyRate, built into wasm/bench).
type benchKeygen struct {
	Keys     int     `json:"keys"`
	MS       float64 `json:"ms"`
	KeysPerS float64 `json:"keysPerS"`
	Spaces   int     `json:"spaces"`
}

type benchResult struct {
	Keygen    benchKeygen `json:"keygen"`
	Batch     int         `json:"batch"`
	Samples   int         `json:"samples"`
	MS        int         `json:"ms"`
	UserAgent string      `json:"userAgent"`
	Runs      []benchRun  `json:"runs"`
	Threads   int         `json:"tfjsWasmThreads"`
	SIMD      bool        `json:"tfjsWasmSimd"`
	Error     string      `json:"error"`
}

// TestBenchBrowser is scripts/bench-browser.sh's driver (it runs only with
// PEERLEARN_BENCH_BROWSER=1): training samples/s of the MLP 784-128-10
// and of the small CNN, batch 64, in headless Chromium, with PeerLearn's
// Go-wasm engine (pure-Go kernels and the SIMD128 module), with the native
// engine on one thread (`peerlearn bench train -threads 1`, after each
// page run) and with TensorFlow.js 4.22 (web/bench, installed from
// its lockfile); and the eclipse grinder's key generations per second
// (sim/eclipse.KeyRate, L = 5) as Go-wasm in the page and natively in this
// process right after each page run, on one core each. It prints
// bench-browser lines, the summary last.
func TestBenchBrowser(t *testing.T) {
	if os.Getenv("PEERLEARN_BENCH_BROWSER") != "1" {
		t.Skip("the browser benchmark runs from scripts/bench-browser.sh (PEERLEARN_BENCH_BROWSER=1)")
	}
	bin := chromium(t)
	data := dataDir(t)
	benchDir, _ := filepath.Abs("../../web/bench")
	if _, err := os.Stat(filepath.Join(benchDir, "node_modules", "@tensorflow", "tfjs-backend-wasm", "dist", "tfjs-backend-wasm-simd.wasm")); err != nil {
		t.Fatalf("TensorFlow.js is not installed: run `npm ci` in web/bench (scripts/bench-browser.sh does): %v", err)
	}
	wasmDir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(wasmDir, "bench.wasm"), "../../wasm/bench")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build wasm/bench: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wasmDir, "wasm_exec.js"), b, 0o644); err != nil {
		t.Fatal(err)
	}

	// The native engine, single-threaded, as bench-train measures it
	// (`peerlearn bench train -threads 1`), run after each page run: the
	// package's own build of cmd/peerlearn, which the light tab, frame
	// gap and resume measures below need anyway (one link, not two).
	peerBin, _, _ := build(t, data)

	mux := http.NewServeMux()
	mux.Handle("GET /wasm/", http.StripPrefix("/wasm/", http.FileServer(http.Dir(wasmDir))))
	mux.Handle("GET /bench/", http.StripPrefix("/bench/", http.FileServer(http.Dir(benchDir))))
	mux.Handle("GET /data/", http.StripPrefix("/data/", http.FileServer(http.Dir(data))))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	ms := 3000
	if v := os.Getenv("PEERLEARN_BENCH_MS"); v != "" {
		fmt.Sscan(v, &ms)
	}
	repeat := 2
	if v := os.Getenv("PEERLEARN_BENCH_REPEAT"); v != "" {
		fmt.Sscan(v, &repeat)
	}
	url := fmt.Sprintf("http://%s/bench/index.html?ms=%d&batch=64", ln.Addr(), ms)
	tb := openBench(t, bin)
	// Each repetition reloads the page (fresh engines); every
	// configuration keeps its best run: on a shared machine the best run
	// is the least disturbed one.
	var res benchResult
	var native benchKeygen
	nativeSPS := map[string]float64{}
	for rep := range max(repeat, 1) {
		r := runBenchPage(t, tb, url, ms)
		for _, run := range r.Runs {
			t.Logf("run %d: %s %s: %.0f samples/s %s", rep+1, run.Arch, run.Engine, run.SPS, run.Error)
		}
		// The same per-key work natively, with the page's warm-up and
		// duration, under the same machine load as the page run.
		eclipse.KeyRate(r.Keygen.Spaces, time.Duration(ms)*time.Millisecond/10)
		keys, el := eclipse.KeyRate(r.Keygen.Spaces, time.Duration(ms)*time.Millisecond)
		nk := benchKeygen{Keys: keys, MS: float64(el.Microseconds()) / 1000, KeysPerS: float64(keys) / el.Seconds(), Spaces: r.Keygen.Spaces}
		t.Logf("run %d: keygen L=%d: go-wasm %.0f keys/s (%d keys), native %.0f keys/s (%d keys)", rep+1, nk.Spaces, r.Keygen.KeysPerS, r.Keygen.Keys, nk.KeysPerS, nk.Keys)
		if nk.KeysPerS > native.KeysPerS {
			native = nk
		}
		for _, arch := range []string{"mlp", "small-cnn"} {
			sps := nativeTrainSPS(t, peerBin, arch, ms)
			t.Logf("run %d: %s native (1 thread): %.0f samples/s", rep+1, arch, sps)
			nativeSPS[arch] = max(nativeSPS[arch], sps)
		}
		if rep == 0 {
			res = r
			continue
		}
		if r.Keygen.KeysPerS > res.Keygen.KeysPerS {
			res.Keygen = r.Keygen
		}
		for i, run := range r.Runs {
			if i < len(res.Runs) && run.Error == "" && run.SPS > res.Runs[i].SPS {
				res.Runs[i] = run
			}
		}
	}
	t.Logf("%s; batch %d, %d MNIST samples cycled, %d ms a run; TF.js wasm: SIMD %v, %d thread(s)", res.UserAgent, res.Batch, res.Samples, res.MS, res.SIMD, res.Threads)
	// What a demo tab downloads (TestLightTab: `make demo`'s partition,
	// the light files, a shard near the mean size, until it trains).
	tabAll, tabWasm, tabData := lightTab(t, bin, data)
	t.Logf("light tab: %.2f MB in all, peer.wasm %.2f MB, data %.2f MB", tabAll/1e6, tabWasm/1e6, tabData/1e6)
	// The page's longest frame gap while a tab trains, every CPU busy
	// (benchFrameGap): in its worker, and on the page's thread.
	gapRounds := 5
	if ms < 1000 { // BENCH_SMOKE
		gapRounds = 2
	}
	gapWorker, gapMain, gapIdle := benchFrameGap(t, bin, data, gapRounds)
	// How long a reloaded tab takes to train again (TestBrowserResume's
	// measure: navigation start to the first round after the saved one).
	resumeS := resumeSeconds(t, bin, data)
	t.Logf("resume: training again %.1f s after the reload", resumeS)
	get := func(arch, engine string) benchRun {
		for _, r := range res.Runs {
			if r.Arch == arch && r.Engine == engine {
				return r
			}
		}
		return benchRun{Error: "not run"}
	}
	var lines []string
	for _, r := range res.Runs {
		if r.Error != "" {
			lines = append(lines, fmt.Sprintf("bench-browser arch=%s engine=%s error=%q", r.Arch, r.Engine, r.Error))
			continue
		}
		// The page checked tf.getBackend() after setBackend (a failed
		// backend silently falls back): Backend is the one that ran.
		// For Go, Backend is the kernels that trained (f32.Kernels()).
		want := map[string]string{"go-wasm": "go", "go-simd": "simd128"}[r.Engine]
		if want == "" {
			want = strings.TrimPrefix(r.Engine, "tfjs-")
		}
		if r.Backend != want {
			t.Errorf("%s %s ran on backend %s, want %s", r.Arch, r.Engine, r.Backend, want)
		}
		lines = append(lines, fmt.Sprintf("bench-browser arch=%s engine=%s sps=%.0f steps=%d loss=%.3f backend=%s", r.Arch, r.Engine, r.SPS, r.Steps, r.Loss, r.Backend))
	}
	for _, arch := range []string{"mlp", "small-cnn"} {
		lines = append(lines, fmt.Sprintf("bench-browser native arch=%s threads=1 sps=%.0f", arch, nativeSPS[arch]))
	}
	kg := res.Keygen
	if kg.Keys < 1 || kg.KeysPerS <= 0 || kg.Spaces != 5 || native.KeysPerS <= 0 {
		t.Fatalf("keygen: go-wasm %+v, native %+v", kg, native)
	}
	lines = append(lines, fmt.Sprintf("bench-browser keygen spaces=%d go_wasm_keys_per_s=%.0f native_keys_per_s=%.0f wasm_vs_native=%.3f",
		kg.Spaces, kg.KeysPerS, native.KeysPerS, kg.KeysPerS/native.KeysPerS))
	// The small CNN against TF.js's best working backend (its wasm
	// backend cannot train it).
	goCNN, simdCNN := get("small-cnn", "go-wasm"), get("small-cnn", "go-simd")
	var best benchRun
	for _, r := range res.Runs {
		if r.Arch == "small-cnn" && strings.HasPrefix(r.Engine, "tfjs-") && r.Error == "" && r.SPS > best.SPS {
			best = r
		}
	}
	if goCNN.Error != "" || simdCNN.Error != "" || best.SPS <= 0 || nativeSPS["small-cnn"] <= 0 {
		t.Fatalf("small CNN: go-wasm %q, go-simd %q, TF.js best %s %.0f samples/s, native %.0f samples/s",
			goCNN.Error, simdCNN.Error, best.Engine, best.SPS, nativeSPS["small-cnn"])
	}
	lines = append(lines, fmt.Sprintf("bench-browser cnn go_wasm_sps=%.0f go_simd_sps=%.0f tfjs_best=%s tfjs_best_sps=%.0f ratio=%.2f simd_ratio=%.2f wasm_vs_native=%.3f",
		goCNN.SPS, simdCNN.SPS, best.Engine, best.SPS, goCNN.SPS/best.SPS, simdCNN.SPS/goCNN.SPS, simdCNN.SPS/nativeSPS["small-cnn"]))
	goMLP, simdMLP, tfMLP := get("mlp", "go-wasm"), get("mlp", "go-simd"), get("mlp", "tfjs-wasm")
	if goMLP.Error != "" || simdMLP.Error != "" || tfMLP.Error != "" || nativeSPS["mlp"] <= 0 {
		t.Fatalf("MLP: go-wasm %q, go-simd %q, tfjs-wasm %q, native %.0f samples/s", goMLP.Error, simdMLP.Error, tfMLP.Error, nativeSPS["mlp"])
	}
	lines = append(lines, fmt.Sprintf("bench-browser frame_gap rounds=%d load=%d worker_ms=%.0f worker_p99_ms=%.0f worker_over50=%d main_ms=%.0f main_p99_ms=%.0f main_over50=%d idle_ms=%.0f idle_p99_ms=%.0f idle_over50=%d",
		gapRounds, runtime.NumCPU(), gapWorker.MaxFrameMS, gapWorker.P99FrameMS, gapWorker.Over50, gapMain.MaxFrameMS, gapMain.P99FrameMS, gapMain.Over50,
		gapIdle.MaxFrameMS, gapIdle.P99FrameMS, gapIdle.Over50))
	lines = append(lines, fmt.Sprintf("bench-browser go_wasm_sps=%.0f go_simd_sps=%.0f tfjs_wasm_sps=%.0f ratio=%.2f simd_ratio=%.2f wasm_vs_native=%.3f frame_gap_ms=%.0f tab_mb=%.2f resume_s=%.1f keygen_wasm_per_s=%.0f keygen_wasm_vs_native=%.3f",
		goMLP.SPS, simdMLP.SPS, tfMLP.SPS, goMLP.SPS/tfMLP.SPS, simdMLP.SPS/goMLP.SPS, simdMLP.SPS/nativeSPS["mlp"], gapWorker.MaxFrameMS, tabAll/1e6, resumeS, kg.KeysPerS, kg.KeysPerS/native.KeysPerS))
	for _, l := range lines {
		fmt.Println(l)
	}
}

// openBench starts a browser for the benchmark page.
func openBench(t *testing.T, bin string) *tab {
	t.Helper()
	actx, acancel := chromedp.NewExecAllocator(context.Background(), chromeFlags(bin, t.TempDir(), false)...)
	ctx, cancel := chromedp.NewContext(actx)
	tb := &tab{name: "bench", ctx: ctx, cancel: func() { cancel(); acancel() }}
	t.Cleanup(tb.close)
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx, chromedp.Navigate("about:blank")) }()
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("start chromium: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("chromium did not start in 30 s")
	}
	return tb
}

// runBenchPage loads the benchmark page and waits for its result.
func runBenchPage(t *testing.T, tb *tab, url string, ms int) benchResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	err := chromedp.Do(ctx, chromedp.Navigate(url))
	cancel()
	if err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	var res benchResult
	waitUntil(t, "the benchmark page's result", time.Duration(ms)*time.Millisecond*10+90*time.Second, time.Second, func() string {
		r, err := evalJS[*benchResult](tb, `window.benchResult`)
		if err == nil && r != nil {
			if r.Error != "" {
				t.Fatalf("benchmark page: %s", r.Error)
			}
			res = *r
			return ""
		}
		return fmt.Sprintf("no result yet (%v)", err)
	})
	return res
}

// nativeTrainSPS runs `peerlearn bench train -threads 1` (the native
// engine, random batches of 64, as scripts/bench-train.sh measures it) for
// ms milliseconds and returns its samples/s.
func nativeTrainSPS(t *testing.T, bin, arch string, ms int) float64 {
	t.Helper()
	secs := fmt.Sprintf("%.3f", float64(ms)/1000)
	warm := fmt.Sprintf("%.3f", float64(ms)/10000)
	out, err := exec.Command(bin, "bench", "train", "-arch", arch, "-threads", "1", "-batch", "64", "-seconds", secs, "-warmup", warm).Output()
	if err != nil {
		t.Fatalf("peerlearn bench train -arch %s: %v\n%s", arch, err, out)
	}
	for _, f := range strings.Fields(string(out)) {
		if v, ok := strings.CutPrefix(f, "sps="); ok {
			var sps float64
			if _, err := fmt.Sscan(v, &sps); err == nil && sps > 0 {
				return sps
			}
		}
	}
	t.Fatalf("peerlearn bench train -arch %s: no sps in %q", arch, out)
	return 0
}
