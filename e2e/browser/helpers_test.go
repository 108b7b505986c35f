package browser

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/peerlearn/peerlearn/internal/headless"
	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// inCI reports whether the tests run in CI, where a missing prerequisite
// is a failure, not a skip.
func inCI() bool { return os.Getenv("CI") == "true" || os.Getenv("CI") == "1" }

// need skips the test (fails it in CI) for a missing prerequisite.
func need(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if inCI() {
		t.Fatalf("CI=true and %s", msg)
	}
	t.Skip(msg)
}

var (
	chromiumOnce sync.Once
	chromiumBin  string
	chromiumErr  error
)

// chromium returns the path of a Chromium binary, installing Debian's
// chromium package when the test runs as root with apt-get and none is
// on PATH.
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test (-short)")
	}
	chromiumOnce.Do(func() {
		find := func() string {
			if p := os.Getenv("PEERLEARN_CHROMIUM"); p != "" {
				return p
			}
			for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
				if p, err := exec.LookPath(name); err == nil {
					return p
				}
			}
			return ""
		}
		if chromiumBin = find(); chromiumBin != "" {
			return
		}
		apt, err := exec.LookPath("apt-get")
		if err != nil || os.Geteuid() != 0 {
			chromiumErr = fmt.Errorf("no chromium on PATH and cannot install it (need root and apt-get): run `apt-get install -y --no-install-recommends chromium` or set PEERLEARN_CHROMIUM")
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, apt, "install", "-y", "--no-install-recommends", "chromium")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			// The package lists may be missing on a fresh machine.
			if upd, err2 := exec.CommandContext(ctx, apt, "update").CombinedOutput(); err2 != nil {
				chromiumErr = fmt.Errorf("apt-get update: %v\n%s", err2, tail(upd))
				return
			}
			cmd = exec.CommandContext(ctx, apt, "install", "-y", "--no-install-recommends", "chromium")
			cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
			if out, err = cmd.CombinedOutput(); err != nil {
				chromiumErr = fmt.Errorf("apt-get install chromium: %v\n%s", err, tail(out))
				return
			}
		}
		if chromiumBin = find(); chromiumBin == "" {
			chromiumErr = fmt.Errorf("apt-get installed chromium but it is not on PATH")
		}
	})
	if chromiumErr != nil {
		need(t, "%v", chromiumErr)
	}
	return chromiumBin
}

func tail(b []byte) string {
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// dataDir returns the directory `make data` fills.
func dataDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PEERLEARN_DATA")
	if dir == "" {
		dir, _ = filepath.Abs("../../.data")
	}
	if _, err := os.Stat(filepath.Join(dir, "mnist", "train-images-idx3-ubyte")); err != nil {
		need(t, "no MNIST under %s (run `make data`)", dir)
	}
	return dir
}

// artifactDir is where screenshots go.
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PEERLEARN_ARTIFACTS")
	if dir == "" {
		dir, _ = filepath.Abs("../../out/browsertest")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
	wasmSize  int64
)

// build compiles cmd/peerlearn, cmd/signalserver and the wasm peer once
// per test run; the wasm directory (served at /wasm/) holds peer.wasm,
// Go's wasm_exec.js and a link to the data directory.
func build(t *testing.T, data string) (peerlearn, signalserver, wasmDir string) {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "browsertest-")
		if buildErr != nil {
			return
		}
		wd := filepath.Join(buildDir, "wasm")
		if buildErr = os.MkdirAll(wd, 0o755); buildErr != nil {
			return
		}
		run := func(env []string, args ...string) error {
			cmd := exec.Command("go", args...)
			cmd.Env = append(os.Environ(), env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			return nil
		}
		if buildErr = run(nil, "build", "-o", buildDir+string(filepath.Separator), "../../cmd/peerlearn", "../../cmd/signalserver"); buildErr != nil {
			return
		}
		// Stripped, as `make wasm` builds it.
		if buildErr = run([]string{"GOOS=js", "GOARCH=wasm"}, "build", "-ldflags=-s -w", "-o", filepath.Join(wd, "peer.wasm"), "../../wasm"); buildErr != nil {
			return
		}
		// Precompressed, as `make wasm` writes it (the server serves the
		// copies to tabs that accept zstd or gzip); without the commands
		// the server compresses peer.wasm itself, a little less.
		if out, err := exec.Command("gzip", "-9", "-n", "-k", "-f", filepath.Join(wd, "peer.wasm")).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "browser tests: no peer.wasm.gz (%v: %s): the server compresses peer.wasm itself\n", err, out)
		}
		if out, err := exec.Command("zstd", "-19", "-q", "-f", filepath.Join(wd, "peer.wasm"), "-o", filepath.Join(wd, "peer.wasm.zst")).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "browser tests: no peer.wasm.zst (%v: %s): tabs get peer.wasm gzipped\n", err, out)
		}
		st, err := os.Stat(filepath.Join(wd, "peer.wasm"))
		if err != nil {
			buildErr = err
			return
		}
		wasmSize = st.Size()
		src := filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js")
		b, err := os.ReadFile(src)
		if err != nil {
			buildErr = err
			return
		}
		if buildErr = os.WriteFile(filepath.Join(wd, "wasm_exec.js"), b, 0o644); buildErr != nil {
			return
		}
		buildErr = os.Symlink(data, filepath.Join(wd, "data"))
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	t.Logf("peer.wasm: %.1f MB", float64(wasmSize)/1e6)
	return filepath.Join(buildDir, "peerlearn"), filepath.Join(buildDir, "signalserver"), filepath.Join(buildDir, "wasm")
}

func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		flag.Set("test.parallel", strconv.Itoa(concurrent))
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// proc is a started `peerlearn peer`.
type proc = proctest.Peer

// startPeer starts `peerlearn peer` and waits for its first line.
func startPeer(t *testing.T, bin, name, sigURL string, extra ...string) *proc {
	t.Helper()
	args := append([]string{"peer", "-signal", sigURL, "-loopback", "-status", "127.0.0.1:0", "-every", "0", "-v"}, extra...)
	return proctest.StartPeer(t, bin, name, args)
}

// peerView is what the tests compare across native and browser peers.
type peerView struct {
	Name        string
	ID          string
	State       string
	Neighbors   []string // sorted hex IDs
	Connections []string // sorted hex IDs of open links
	Rounds      int
	Evals       int
	Accuracy    float64
	BytesIn     uint64
	BytesOut    uint64
	Coords      []float64 // its own ring coordinates as it places itself (admitted placement)
}

// nativeView reads a native peer's status endpoint.
func nativeView(p *proc) (peerView, error) {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(p.Status)
	if err != nil {
		return peerView{}, err
	}
	defer resp.Body.Close()
	var s struct {
		ID          string               `json:"id"`
		State       string               `json:"state"`
		Neighbors   []string             `json:"neighbors"`
		Connections []string             `json:"connections"`
		Placement   map[string][]float64 `json:"placement"`
		RTC         struct {
			BytesIn  uint64 `json:"BytesIn"`
			BytesOut uint64 `json:"BytesOut"`
		} `json:"rtc"`
		Learn *struct {
			Rounds   int     `json:"rounds"`
			Accuracy float64 `json:"accuracy"`
			Evals    int     `json:"evals"`
		} `json:"learn"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return peerView{}, err
	}
	v := peerView{Name: p.Name, ID: s.ID, State: s.State, Neighbors: sorted(s.Neighbors), Connections: sorted(s.Connections),
		BytesIn: s.RTC.BytesIn, BytesOut: s.RTC.BytesOut, Coords: s.Placement[s.ID]}
	if s.Learn != nil {
		v.Rounds, v.Accuracy, v.Evals = s.Learn.Rounds, s.Learn.Accuracy, s.Learn.Evals
	}
	return v, nil
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// tab is one browser peer: its own Chromium process (fresh profile) with
// one page.
type tab struct {
	name   string
	ctx    context.Context
	cancel context.CancelFunc
	id     string
}

// chromeFlags are the flags with which headless Chromium makes WebRTC
// connections over loopback (measured here: with them, and the page
// granted camera and microphone, tabs emit 127.0.0.1 host candidates and
// tab<->tab, browser<->native connect in 0.1-0.6 s), plus no throttling of
// background timers unless throttle (a hidden tab then gets about one
// timer wake-up a second, as a volunteer's background tab does).
func chromeFlags(bin, profile string, throttle bool) []chromedp.ExecAllocatorOption {
	opts := append(headless.Options(bin, profile),
		chromedp.Flag("allow-loopback-in-peer-connection", true),
		chromedp.Flag("disable-background-timer-throttling", !throttle),
		chromedp.Flag("disable-backgrounding-occluded-windows", !throttle),
		chromedp.Flag("disable-renderer-backgrounding", !throttle),
		chromedp.WindowSize(1280, 1000),
	)
	if throttle {
		// Chrome's intensive throttling (one wake-up a minute for chained
		// timers) starts after a page has been hidden 5 minutes; here
		// after 5 seconds, so a test sees it.
		opts = append(opts, chromedp.Flag("enable-features",
			"NetworkService,NetworkServiceInProcess,IntensiveWakeUpThrottling:grace_period_seconds/5"))
	}
	return opts
}

// openTab starts a browser, grants the page's origin the microphone and
// camera (so that WebRTC gathers 127.0.0.1 host candidates instead of
// mDNS names) and loads url.
func openTab(t *testing.T, bin, name, origin, url string) *tab {
	t.Helper()
	return openTabThrottled(t, bin, name, origin, url, false)
}

// openTabThrottled is openTab with Chromium's background throttling on
// if throttle.
func openTabThrottled(t *testing.T, bin, name, origin, url string, throttle bool) *tab {
	t.Helper()
	return openTabHooked(t, bin, name, origin, url, throttle, nil)
}

// openTabHooked is openTabThrottled calling before (if not nil) with the
// tab's context (it lives as long as the tab) once the browser has
// started, before the page loads: to listen to its network events, say.
func openTabHooked(t *testing.T, bin, name, origin, url string, throttle bool, before func(ctx context.Context) error) *tab {
	t.Helper()
	profile := t.TempDir()
	actx, acancel := chromedp.NewExecAllocator(context.Background(), chromeFlags(bin, profile, throttle)...)
	ctx, cancel := chromedp.NewContext(actx)
	tb := &tab{name: name, ctx: ctx, cancel: func() { cancel(); acancel() }}
	t.Cleanup(tb.close)
	// Console messages of the page go to the test log on failure.
	var cmu sync.Mutex
	var console []string
	t.Cleanup(func() {
		if t.Failed() {
			cmu.Lock()
			defer cmu.Unlock()
			for _, l := range console {
				t.Logf("%s console: %s", name, l)
			}
		}
	})
	// The first action starts the browser, which lives as long as the
	// context of that action: ctx itself, bounded here by a timer.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx, chromedp.Navigate("about:blank")) }()
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("%s: start chromium: %v", name, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: chromium did not start in 30 s", name)
	}
	start, cancelStart := context.WithTimeout(ctx, 30*time.Second)
	defer cancelStart()
	for _, perm := range []string{"microphone", "camera"} {
		if _, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: perm},
			Setting:    browser.PermissionSettingGranted,
			Origin:     origin,
		}); err != nil {
			t.Fatalf("%s: grant %s: %v", name, perm, err)
		}
	}
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			cmu.Lock()
			if len(console) < 300 {
				console = append(console, fmt.Sprintf("%s %s", m.Type, m.Text))
			}
			cmu.Unlock()
		}
	}()
	if before != nil {
		if err := before(ctx); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if err := chromedp.Do(start, chromedp.Navigate(url), chromedp.WaitEnabled("#join")); err != nil {
		t.Fatalf("%s: load %s: %v", name, url, err)
	}
	return tb
}

func (tb *tab) close() {
	if tb.cancel != nil {
		tb.cancel()
		tb.cancel = nil
	}
}

// eval runs a JavaScript expression in the tab with a timeout.
func evalJS[T any](tb *tab, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// browserView reads the page's peer status.
func browserView(tb *tab) (peerView, error) {
	b, err := evalJS[[]byte](tb, `window.peerlearnPeer ? JSON.stringify(window.peerlearnPeer.status()) : "null"`)
	if err != nil {
		return peerView{}, err
	}
	var js string
	if err := json.Unmarshal(b, &js); err != nil {
		return peerView{}, err
	}
	return pageView(tb.name, js)
}

// pageView parses a page peer's status() as JSON ("null": no peer yet),
// from Chromium or any other browser.
func pageView(name, js string) (peerView, error) {
	var s struct {
		ID        string `json:"id"`
		State     string `json:"state"`
		Error     string `json:"error"`
		Neighbors []struct {
			ID        string `json:"id"`
			Connected bool   `json:"connected"`
		} `json:"neighbors"`
		BytesIn  uint64    `json:"bytes_in"`
		BytesOut uint64    `json:"bytes_out"`
		Coords   []float64 `json:"coords"`
		Learn    *struct {
			Rounds   int     `json:"rounds"`
			Accuracy float64 `json:"accuracy"`
			Evals    int     `json:"evals"`
		} `json:"learn"`
	}
	if js == "null" {
		return peerView{}, fmt.Errorf("%s: no peer yet", name)
	}
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		return peerView{}, err
	}
	v := peerView{Name: name, ID: s.ID, State: s.State, BytesIn: s.BytesIn, BytesOut: s.BytesOut, Coords: s.Coords}
	for _, n := range s.Neighbors {
		v.Neighbors = append(v.Neighbors, n.ID)
		if n.Connected {
			v.Connections = append(v.Connections, n.ID)
		}
	}
	v.Neighbors, v.Connections = sorted(v.Neighbors), sorted(v.Connections)
	if s.Learn != nil {
		v.Rounds, v.Accuracy, v.Evals = s.Learn.Rounds, s.Learn.Accuracy, s.Learn.Evals
	}
	if s.State == "failed" {
		return v, fmt.Errorf("%s failed: %s", name, s.Error)
	}
	return v, nil
}

// checkOverlay compares every peer's neighbour set with
// overlay.ExpectedTables of all their IDs and requires a link to every
// neighbour; "" when all are right.
func checkOverlay(views []peerView, spaces int) string {
	ids := make([]ident.Peer, len(views))
	for i, v := range views {
		b, _ := hex.DecodeString(v.ID)
		copy(ids[i][:], b)
	}
	known := map[string][]float64{}
	for _, v := range views {
		known[v.ID] = v.Coords
	}
	want := overlay.ExpectedTablesAt(ids, spaces, netpeer.PlacementFrom(known))
	var diffs []string
	for i, v := range views {
		var w []string
		for _, id := range want[ids[i]].Neighbors() {
			w = append(w, hex.EncodeToString(id[:]))
		}
		w = sorted(w)
		switch {
		case !slices.Equal(w, v.Neighbors):
			diffs = append(diffs, fmt.Sprintf("%s: %d neighbours, want %d", v.Name, len(v.Neighbors), len(w)))
		case !slices.Equal(v.Neighbors, v.Connections):
			diffs = append(diffs, fmt.Sprintf("%s: %d links for %d neighbours", v.Name, len(v.Connections), len(v.Neighbors)))
		}
	}
	return strings.Join(diffs, "; ")
}

// e2eServer is a signalling server (cmd/signalserver) hosting e2eSpec and
// serving the page and the wasm build.
type e2eServer struct {
	tid      ident.Task
	taskFile string // e2eSpec, for native peers' -task
	origin   string // http://host:port
	sigURL   string // ws://host:port/signal
}

func startE2EServer(t *testing.T, sigBin, wasmDir string) e2eServer {
	t.Helper()
	return startTaskServer(t, sigBin, wasmDir, e2eSpec)
}

// startTaskServer is startE2EServer for the task spec specJSON.
func startTaskServer(t *testing.T, sigBin, wasmDir, specJSON string) e2eServer {
	t.Helper()
	spec, err := task.Parse([]byte(specJSON))
	if err != nil {
		t.Fatal(err)
	}
	s := e2eServer{taskFile: filepath.Join(t.TempDir(), "task.json")}
	if s.tid, err = spec.ID(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.taskFile, []byte(specJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	_, addr := proctest.StartSignalServer(t, "signalserver", sigBin, []string{"-web", "../../web", "-wasm", wasmDir, "-task", s.taskFile})
	s.origin, s.sigURL = "http://"+addr, "ws://"+addr+"/signal"
	return s
}

// joinTab opens the page of srv's task with the further URL query (say
// "shard=3/8&evalEvery=2000"), clicks Join and waits until the tab's peer
// has registered with the server (state joining or member): it has
// loaded its data and built its learning peer by then. A non-nil seed is
// the tab's key seed (the page keeps it in sessionStorage), else the page
// draws one.
func joinTab(t *testing.T, bin, name string, srv e2eServer, query string, seed []byte) *tab {
	t.Helper()
	tb := openTab(t, bin, name, srv.origin, fmt.Sprintf("%s/?task=%s&%s", srv.origin, srv.tid.Hex(), query))
	if seed != nil {
		if _, err := evalJS[bool](tb, fmt.Sprintf(`sessionStorage.setItem("peerlearn-seed", %q), true`, hex.EncodeToString(seed))); err != nil {
			t.Fatalf("%s: set the key seed: %v", name, err)
		}
	}
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	err := chromedp.Do(ctx, chromedp.Click("#join"))
	cancel()
	if err != nil {
		t.Fatalf("%s: click Join: %v", name, err)
	}
	waitRegistered(t, tb)
	return tb
}

// waitRegistered waits until the tab's peer has registered with the
// server (state joining or member) and notes its ID.
func waitRegistered(t *testing.T, tb *tab) {
	t.Helper()
	waitUntil(t, tb.name+" registers", 60*time.Second, 200*time.Millisecond, func() string {
		v, err := browserView(tb)
		if err == nil && (v.State == "joining" || v.State == "member") {
			tb.id = v.ID
			return ""
		}
		return fmt.Sprintf("%+v %v", v, err)
	})
}

// waitUntil is proctest.WaitUntil: bounded condition polling.
var waitUntil = proctest.WaitUntil

// trainedAcc is the test accuracy at which the tests take a peer to
// have trained: far above MNIST's chance (0.1), reached in a few rounds
// on any machine. A level (80%, 85%) would be a threshold a loaded
// machine reaches only later; the accuracy the methods reach is
// claimed by the simulator's deterministic runs (sim/scenario
// TestFedLayMNISTQuick, TestPENSRotatedQuick, TestPlexusQuick).
const trainedAcc = 0.5

// methodView is what the method tests read from a peer: a native's
// /status or a tab's page status (the same method.Status in both).
type methodView struct {
	Name      string
	ID        ident.Peer
	Method    *method.Status // nil before the peer has its learner
	Rounds    int            // trainings finished
	Accuracy  float64        // of the method's model, at EvalRound trainings
	EvalRound int
	Evals     int
	EvalFinal bool // the last evaluation was of the final model
	// Of a tab only: its shard as the page shows it.
	Shard   string
	Rotated bool
	Labels  []int
	Capped  string
}

// nativeMethodView reads a native peer's /status.
func nativeMethodView(p *proc) (methodView, error) {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(p.Status)
	if err != nil {
		return methodView{}, err
	}
	defer resp.Body.Close()
	var s netpeer.Status
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return methodView{}, fmt.Errorf("%s: %v", p.Name, err)
	}
	v := methodView{Name: p.Name}
	if v.ID, err = ident.ParsePeer(s.ID); err != nil {
		return methodView{}, fmt.Errorf("%s: %v", p.Name, err)
	}
	if l := s.Learn; l != nil {
		v.Method, v.Rounds, v.Accuracy, v.EvalRound, v.Evals, v.EvalFinal = l.Method, l.Rounds, l.Accuracy, l.EvalRound, l.Evals, l.EvalFinal
	}
	return v, nil
}

// tabMethodView reads the page's peer status (wasm/status.go pageStatus).
func tabMethodView(tb *tab) (methodView, error) {
	js, err := evalJS[string](tb, `window.peerlearnPeer ? JSON.stringify(window.peerlearnPeer.status()) : "null"`)
	if err != nil {
		return methodView{}, fmt.Errorf("%s: %v", tb.name, err)
	}
	var s struct {
		ID    string `json:"id"`
		State string `json:"state"`
		Error string `json:"error"`
		Data  *struct {
			Shard   string `json:"shard"`
			Rotated bool   `json:"rotated"`
			Labels  []int  `json:"labels"`
		} `json:"data"`
		Learn *struct {
			Method    *method.Status `json:"method"`
			Rounds    int            `json:"rounds"`
			Accuracy  float64        `json:"accuracy"`
			EvalRound int            `json:"eval_round"`
			Evals     int            `json:"evals"`
			EvalFinal bool           `json:"eval_final"`
			Capped    string         `json:"capped"`
		} `json:"learn"`
	}
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		return methodView{}, fmt.Errorf("%s: %v", tb.name, err)
	}
	if s.State == "failed" {
		return methodView{}, fmt.Errorf("%s failed: %s", tb.name, s.Error)
	}
	v := methodView{Name: tb.name}
	if v.ID, err = ident.ParsePeer(s.ID); err != nil {
		return methodView{}, fmt.Errorf("%s: %v", tb.name, err)
	}
	if d := s.Data; d != nil {
		v.Shard, v.Rotated, v.Labels = d.Shard, d.Rotated, d.Labels
	}
	if l := s.Learn; l != nil {
		v.Method, v.Rounds, v.Accuracy, v.EvalRound, v.Evals, v.EvalFinal, v.Capped = l.Method, l.Rounds, l.Accuracy, l.EvalRound, l.Evals, l.EvalFinal, l.Capped
	}
	return v, nil
}

// pageMethodText is what the page shows a volunteer as the method and
// its role (#method).
func pageMethodText(tb *tab) (string, error) {
	return evalJS[string](tb, `document.getElementById("method").textContent`)
}

// seedWithIDBelow returns a key seed whose peer ID's first byte is below
// b (drawn from rng, about 256/b tries): a peer that ranks first among
// random IDs, say Plexus's aggregator (the sample's smallest ID) in
// every round it is sampled in.
func seedWithIDBelow(rng *rand.Rand, b byte) []byte {
	seed := make([]byte, 32)
	for {
		for i := range seed {
			seed[i] = byte(rng.Uint32())
		}
		id, err := signal.IdentityFromSeed(seed)
		if err == nil && id.ID()[0] < b {
			return seed
		}
	}
}
