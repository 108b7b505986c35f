package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// firefoxTab is a page in Debian's firefox-esr, driven by
// e2e/browser/firefox/tab.mjs (puppeteer-core over WebDriver BiDi), which
// prints the page peer's status every second.
type firefoxTab struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser

	mu      sync.Mutex
	ua      string
	status  string   // the latest status line's JSON
	console []string // the page's console, bounded
	exited  error
	done    chan struct{}
}

var (
	firefoxOnce sync.Once
	firefoxBin  string
	firefoxErr  error
)

// findFirefox returns firefox-esr's (or firefox's) path on PATH, or "".
func findFirefox() string {
	if p := os.Getenv("PEERLEARN_FIREFOX"); p != "" {
		return p
	}
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// firefox returns firefox-esr's path, installing Debian's package when
// the test runs as root with apt-get and none is on PATH (as chromium
// does), and makes sure the driver's puppeteer-core is installed (npm ci
// from its lockfile; it downloads no browser).
func firefox(t *testing.T) (exe, driver string) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test (-short)")
	}
	firefoxOnce.Do(func() {
		if firefoxBin = findFirefox(); firefoxBin != "" {
			return
		}
		apt, err := exec.LookPath("apt-get")
		if err != nil || os.Geteuid() != 0 {
			firefoxErr = fmt.Errorf("no firefox-esr on PATH and cannot install it (need root and apt-get): run `apt-get install -y --no-install-recommends firefox-esr` or set PEERLEARN_FIREFOX")
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, apt, "install", "-y", "--no-install-recommends", "firefox-esr")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			firefoxErr = fmt.Errorf("apt-get install firefox-esr: %v\n%s", err, tail(out))
			return
		}
		if firefoxBin = findFirefox(); firefoxBin == "" {
			firefoxErr = fmt.Errorf("apt-get installed firefox-esr but it is not on PATH")
		}
	})
	if firefoxErr != nil {
		need(t, "%v", firefoxErr)
	}
	exe = firefoxBin
	if _, err := exec.LookPath("node"); err != nil {
		need(t, "no node on PATH (scripts/deps.sh test installs it)")
	}
	dir, _ := filepath.Abs("firefox")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "puppeteer-core", "package.json")); err != nil {
		cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			need(t, "npm ci in e2e/browser/firefox: %v\n%s", err, tail(out))
		}
	}
	return exe, filepath.Join(dir, "tab.mjs")
}

// openFirefox starts a Firefox tab on url; it ends with the test.
func openFirefox(t *testing.T, exe, driver, name, url string) *firefoxTab {
	t.Helper()
	ft := &firefoxTab{name: name, done: make(chan struct{})}
	ft.cmd = exec.Command("node", driver, exe, url, "600")
	ft.cmd.Dir = filepath.Dir(driver)
	ft.cmd.Stderr = os.Stderr
	var err error
	if ft.stdin, err = ft.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := ft.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ft.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			kind, rest, _ := strings.Cut(sc.Text(), " ")
			ft.mu.Lock()
			switch kind {
			case "status":
				ft.status = rest
			case "ua":
				ft.ua = rest
			default:
				if len(ft.console) < 300 {
					ft.console = append(ft.console, sc.Text())
				}
			}
			ft.mu.Unlock()
		}
		err := ft.cmd.Wait()
		ft.mu.Lock()
		ft.exited = fmt.Errorf("driver exited: %v", err)
		ft.mu.Unlock()
		close(ft.done)
	}()
	t.Cleanup(func() {
		ft.stdin.Close() // the driver closes Firefox and exits
		select {
		case <-ft.done:
		case <-time.After(20 * time.Second):
			ft.cmd.Process.Kill()
			<-ft.done
		}
		if t.Failed() {
			ft.mu.Lock()
			defer ft.mu.Unlock()
			for _, l := range ft.console {
				t.Logf("%s: %s", name, l)
			}
		}
	})
	return ft
}

// view parses the latest status the driver printed.
func (ft *firefoxTab) view() (peerView, error) {
	ft.mu.Lock()
	st, exited := ft.status, ft.exited
	ft.mu.Unlock()
	if exited != nil {
		return peerView{}, fmt.Errorf("%s: %v", ft.name, exited)
	}
	if st == "" {
		return peerView{}, fmt.Errorf("%s: no status yet", ft.name)
	}
	return pageView(ft.name, st)
}

// TestFirefoxJoins: a Firefox ESR tab (Debian's firefox-esr, driven over
// WebDriver BiDi), a Chromium tab and a native peer join one task through
// cmd/signalserver: they form the correct overlay, every one linked to the
// others over WebRTC, and all three train (rounds done, models received,
// test accuracy far above chance).
func TestFirefoxJoins(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	ffExe, driver := firefox(t)
	data := dataDir(t)
	peerBin, sigBin, wasmDir := build(t, data)
	srv := startE2EServer(t, sigBin, wasmDir)
	native := startPeer(t, peerBin, "native", srv.sigURL, "-task", srv.taskFile, "-data", data, "-shard", "0/6",
		"-eval-every", "2s", "-eval-samples", "1000")
	ff := openFirefox(t, ffExe, driver, "firefox",
		fmt.Sprintf("%s/?task=%s&shard=2/6&evalEvery=2000&evalSamples=1000&autojoin=1", srv.origin, srv.tid.Hex()))
	chrome := joinTab(t, bin, "chromium", srv, "shard=1/6&evalEvery=2000&evalSamples=1000", nil)

	var last string
	waitUntil(t, "Firefox, Chromium and native peers in one overlay, all training", 4*time.Minute, time.Second, func() string {
		nv, err := nativeView(native)
		if err != nil {
			return err.Error()
		}
		cv, err := browserView(chrome)
		if err != nil {
			return err.Error()
		}
		fv, err := ff.view()
		if err != nil {
			return err.Error()
		}
		views := []peerView{nv, cv, fv}
		if d := checkOverlay(views, spaces); d != "" {
			last = d
			return d
		}
		for _, v := range views {
			if v.Rounds < 2 || v.Evals < 1 || v.Accuracy < trainedAcc || v.BytesIn == 0 || v.BytesOut == 0 {
				last = fmt.Sprintf("%s: %d rounds, %d evals, accuracy %.3f, bytes in %d out %d", v.Name, v.Rounds, v.Evals, v.Accuracy, v.BytesIn, v.BytesOut)
				return last
			}
		}
		last = ""
		return ""
	})
	ff.mu.Lock()
	ua := ff.ua
	ff.mu.Unlock()
	if !strings.Contains(ua, "Firefox/") {
		t.Errorf("the Firefox tab's user agent is %q", ua)
	}
	fv, _ := ff.view()
	t.Logf("%s: %d rounds, accuracy %.3f, %d B in, %d B out", ua, fv.Rounds, fv.Accuracy, fv.BytesIn, fv.BytesOut)
	// Where the Firefox tab trains (wasm/trainerview.go): its Web Worker,
	// given the page's compiled module, as in Chromium.
	ff.mu.Lock()
	raw := ff.status
	ff.mu.Unlock()
	var st struct {
		Trainer struct{ Where, Kernels, Note string } `json:"trainer"`
	}
	if err := json.Unmarshal([]byte(raw), &st); err != nil || st.Trainer.Where != "worker" {
		t.Errorf("the Firefox tab trains in %+v (%v): want its worker", st.Trainer, err)
	}
	t.Logf("the Firefox tab trains in its %s with the %s kernels", st.Trainer.Where, st.Trainer.Kernels)
}
