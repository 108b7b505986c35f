package browser

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBrowserSharesProgress (issue #24 item 7): a tab whose volunteer
// ticks "Share my progress" sends the server its signed summaries, a tab
// that does not sends none; the task list counts one peer reporting of
// two, and the page's Swarm line says so.
func TestBrowserSharesProgress(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	_, sigBin, wasmDir := build(t, dataDir(t))
	origin, ids := startTwoTasks(t, sigBin, wasmDir)
	alpha := ids[0].Hex()

	sharing := openTab(t, bin, "sharing", origin, origin+"/?task="+alpha)
	if _, err := evalJS[bool](sharing, `(() => { document.getElementById("share-progress").checked = true; return true; })()`); err != nil {
		t.Fatal(err)
	}
	joinAndWaitTask(t, sharing, alpha, "list-alpha")
	quiet := openTab(t, bin, "quiet", origin, origin+"/?task="+alpha)
	joinAndWaitTask(t, quiet, alpha, "list-alpha")

	waitUntil(t, "the server counts one of two reporting", 60*time.Second, 200*time.Millisecond, func() string {
		s, err := evalJS[string](quiet, `fetch("/tasks").then((r) => r.json()).then((b) => JSON.stringify(b.tasks.filter((t) => t.name === "list-alpha")))`)
		if err != nil {
			return err.Error()
		}
		var got []struct {
			Peers     int `json:"peers"`
			Reporting int `json:"reporting"`
		}
		if err := json.Unmarshal([]byte(s), &got); err != nil || len(got) != 1 || got[0].Peers != 2 || got[0].Reporting != 1 {
			return s
		}
		return ""
	})
	waitUntil(t, "the page's Swarm line", 30*time.Second, 200*time.Millisecond, func() string {
		s, err := evalJS[string](quiet, `document.getElementById("swarm").textContent`)
		if err != nil || !strings.HasPrefix(s, "1 of 2 peers report") {
			return fmt.Sprintf("%q %v", s, err)
		}
		return ""
	})
	for _, tb := range []*tab{sharing, quiet} {
		s, err := evalJS[string](tb, `JSON.stringify(window.peerlearnPeer.status().summaries || null)`)
		if err != nil {
			t.Fatal(err)
		}
		if want := tb == sharing; (s != "null") != want {
			t.Errorf("%s: summaries %s; sharing %v", tb.name, s, want)
		}
	}
}
