package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/protocol/task"
)

// initGainSpec is e2eSpec with init he-gain and gain 0: the peers
// estimate the network size before training.
var initGainSpec = strings.Replace(strings.Replace(e2eSpec, `"mode":"he"`, `"mode":"he-gain"`, 1), `"browser-e2e"`, `"browser-init-gain"`, 1)

// initGainView is the init_gain object of a native /status or the page's
// status.
type initGainView struct {
	State    string  `json:"state"`
	Estimate float64 `json:"estimate"`
	Used     float64 `json:"used"`
	Gain     float64 `json:"gain"`
	Rounds   int     `json:"rounds"`
}

// TestBrowserInitGainEstimate: a tab and four native peers on a task with
// init he-gain and gain 0. The tab takes part in the push-sum estimate
// over its WebRTC links; every peer's estimate ends within 10% of 5, the
// page shows the estimate and the gain, and the tab trains. (Push-sum
// over a connected overlay is exact up to its stopping rule, not a
// statistic: protocol/pushsum's TestEstimateOnRings holds it to 1% on 8
// to 200 nodes; 10% leaves room for a native that joins late.)
func TestBrowserInitGainEstimate(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	data := dataDir(t)
	peerBin, sigBin, wasmDir := build(t, data)
	spec, err := task.Parse([]byte(initGainSpec))
	if err != nil {
		t.Fatal(err)
	}
	tid, err := spec.ID()
	if err != nil {
		t.Fatal(err)
	}
	taskFile := filepath.Join(t.TempDir(), "task.json")
	if err := os.WriteFile(taskFile, []byte(initGainSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	_, addr := proctest.StartSignalServer(t, "signalserver", sigBin, []string{"-web", "../../web", "-wasm", wasmDir, "-task", taskFile})
	origin, sigURL := "http://"+addr, "ws://"+addr+"/signal"

	// The tab first: it founds the overlay, and the natives join it
	// within a second or two. A peer estimates the network it is in during
	// its first MinRounds rounds (5 s); a peer that joins after the others
	// have fixed their gain counts in later estimates only (see
	// peer/netpeer/sizer.go), and a tab takes seconds to load the wasm.
	const n = 5
	t0 := time.Now()
	tb := openTab(t, bin, "tab", origin, fmt.Sprintf("%s/?task=%s&shard=5/6", origin, tid.Hex()))
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	err = chromedp.Do(ctx, chromedp.Click("#join"))
	cancel()
	if err != nil {
		t.Fatalf("click Join: %v", err)
	}
	waitRegistered(t, tb)
	var natives []*proc
	for i := range n - 1 {
		natives = append(natives, startPeer(t, peerBin, fmt.Sprintf("native%d", i), sigURL,
			"-task", taskFile, "-data", data, "-shard", fmt.Sprintf("%d/6", i)))
	}
	native := func(p *proc) (initGainView, error) {
		c := http.Client{Timeout: 2 * time.Second}
		resp, err := c.Get(p.Status)
		if err != nil {
			return initGainView{}, err
		}
		defer resp.Body.Close()
		var s struct {
			InitGain *initGainView `json:"init_gain"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&s); err != nil || s.InitGain == nil {
			return initGainView{}, fmt.Errorf("%s: no init_gain (%v)", p.Name, err)
		}
		return *s.InitGain, nil
	}
	check := func(who string, g initGainView) (string, bool) {
		switch {
		case g.State == "estimating":
			return fmt.Sprintf("%s: estimating (%.2f, round %d)", who, g.Estimate, g.Rounds), false
		case g.State != "done" || math.Abs(g.Used/n-1) > 0.1 || math.Abs(g.Gain-math.Sqrt(g.Used)) > 1e-9:
			t.Fatalf("%s: init gain %+v, want an estimate within 10%% of %d and its square root", who, g, n)
		}
		return "", true
	}
	waitUntil(t, "every peer's estimate", 120*time.Second, time.Second, func() string {
		why := ""
		for _, p := range natives {
			g, err := native(p)
			if err != nil {
				why = err.Error()
			} else if w, ok := check(p.Name, g); !ok {
				why = w
			}
		}
		page, err := evalJS[string](tb, `window.peerlearnPeer ? JSON.stringify(window.peerlearnPeer.status().init_gain || null) : "null"`)
		var g *initGainView
		if err == nil {
			err = json.Unmarshal([]byte(page), &g)
		}
		var shown string
		switch {
		case err != nil:
			why = err.Error()
		case g == nil:
			why = "the page's status has no init_gain"
		default:
			if w, ok := check("tab", *g); !ok {
				why = w
			} else if shown, err = evalJS[string](tb, `document.getElementById("init-gain-fig").hidden ? "" : document.getElementById("init-gain").textContent`); err != nil || !strings.Contains(shown, fmt.Sprintf("%.1f", g.Used)) {
				why = fmt.Sprintf("the page shows %q (%v) for %+v", shown, err, *g)
			}
		}
		if why == "" {
			v, err := browserView(tb)
			if err == nil && v.Rounds >= 2 {
				t.Logf("all %d peers estimated within 10%%; the page shows %q; the tab has trained %d rounds (%v)", n, shown, v.Rounds, time.Since(t0).Round(time.Second))
				return ""
			}
			why = fmt.Sprintf("tab not trained yet: %+v %v", v, err)
		}
		return why
	})
}
