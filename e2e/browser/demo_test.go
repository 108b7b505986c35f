package browser

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/peerlearn/peerlearn/internal/proctest"
)

// TestDemoBrowserJoins runs `peerlearn demo` (as `make demo` does, with
// fewer peers), opens the URL it prints in a headless Chromium, clicks
// Join, and checks that the tab becomes an overlay member with
// neighbours among the demo's peers and trains: its evaluated test
// accuracy is far above chance (trainedAcc). The demo's own table must count the browser as
// an overlay member.
func TestDemoBrowserJoins(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	data := dataDir(t)
	peerBin, sigBin, wasmDir := build(t, data)
	addr := proctest.FreeAddr(t)
	out := t.TempDir()
	cmd := exec.Command(peerBin, "demo", "-peers", "4", "-addr", addr, "-data", data,
		"-web", "../../web", "-wasm", wasmDir, "-signalserver", sigBin,
		// A target no run reaches: the test stops the demo itself.
		"-target", "1", "-limit", "4m", "-every", "2s", "-out", out)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	urls := make(chan string, 1)
	var mu sync.Mutex
	var lines []string
	snapshot := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			l := sc.Text()
			mu.Lock()
			lines = append(lines, l)
			mu.Unlock()
			if _, rest, ok := strings.Cut(l, "open "); ok && strings.Contains(l, "in a browser") {
				select {
				case urls <- strings.Fields(rest)[0]:
				default:
				}
			}
		}
		cmd.Wait()
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("demo stdout:\n%s", strings.Join(snapshot(), "\n"))
			t.Logf("demo logs in %s", filepath.Join(out, "logs"))
		}
	})

	var url string
	select {
	case url = <-urls:
	case <-done:
		t.Fatal("demo exited before printing its URL")
	case <-time.After(90 * time.Second):
		t.Fatal("demo printed no URL in 90 s")
	}
	t.Logf("demo URL: %s", url)
	origin := "http://" + addr
	tb := openTab(t, bin, "demo-tab", origin, url)
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	err = chromedp.Do(ctx, chromedp.Click("#join"))
	cancel()
	if err != nil {
		t.Fatalf("click Join: %v", err)
	}
	t0 := time.Now()
	waitUntil(t, "the tab trains in the demo", 150*time.Second, time.Second, func() string {
		v, err := browserView(tb)
		if err == nil && v.State == "member" && len(v.Neighbors) > 0 && v.Evals > 0 && v.Accuracy >= trainedAcc {
			t.Logf("the tab joined the demo: %d neighbours, %d rounds, accuracy %.3f after %v",
				len(v.Neighbors), v.Rounds, v.Accuracy, time.Since(t0).Round(time.Second))
			return ""
		}
		return fmt.Sprintf("tab view %+v, err %v", v, err)
	})
	// The demo's table names the browser as an overlay member (its table
	// comes every 2 s).
	waitUntil(t, "the demo's table counts the browser", 20*time.Second, 500*time.Millisecond, func() string {
		for _, l := range snapshot() {
			if f := strings.Fields(l); len(f) == 8 && f[7] == "1" {
				return ""
			}
		}
		return "no table line with one browser member"
	})
	stop()
	all := snapshot()
	last := all[len(all)-1]
	if !strings.HasPrefix(last, "demo peers=4 acc_mean=") {
		t.Errorf("demo's last line %q, want the result line", last)
	}
}
