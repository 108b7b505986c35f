package browser

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/signal"
)

// TestBrowserShowsObserver: a tab trains; `peerlearn collect` joins the
// task as an observer, gets the tab as its contact and pulls its model.
// The page shows the observer under its neighbours (its ID, the models
// sent to it), never among them, and the page's status lists it as an
// observer the tab served.
func TestBrowserShowsObserver(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	data := dataDir(t)
	peerBin, sigBin, wasmDir := build(t, data)
	srv := startE2EServer(t, sigBin, wasmDir)
	tb := joinTab(t, bin, "tab", srv, "evalEvery=2000", nil)

	dir := t.TempDir()
	seed := bytes.Repeat([]byte{0x0b}, 32)
	key := filepath.Join(dir, "collector.key")
	if err := os.WriteFile(key, []byte(hex.EncodeToString(seed)), 0o600); err != nil {
		t.Fatal(err)
	}
	obs, err := signal.IdentityFromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	oid := obs.ID().Hex()
	proctest.Start(t, "collect", peerBin, []string{"collect", "-signal", srv.sigURL, "-task", srv.taskFile, "-data", data,
		"-loopback", "-o", filepath.Join(dir, "out"), "-key", key, "-duration", "5m", "-eval-samples", "500"}, nil)

	type view struct {
		Shown     bool     `json:"shown"`
		Text      string   `json:"text"`
		Observers []string `json:"observers"`
		Sent      int      `json:"sent"`
		Neighbors []string `json:"neighbors"`
	}
	waitUntil(t, "the page shows the collector as an observer it sent a model to", 3*time.Minute, 250*time.Millisecond, func() string {
		var v view
		s, err := evalJS[string](tb, `(() => { const s = window.peerlearnPeer ? window.peerlearnPeer.status() : {}; const o = s.observers || [];
			return JSON.stringify({shown: !document.getElementById("observers").hidden, text: document.getElementById("observers").textContent,
				observers: o.map((x) => x.id), sent: o.reduce((n, x) => n + x.models_sent, 0), neighbors: (s.neighbors || []).map((n) => n.id)}); })()`)
		if err == nil {
			err = json.Unmarshal([]byte(s), &v)
		}
		switch {
		case err != nil:
			return err.Error()
		case len(v.Observers) != 1 || v.Observers[0] != oid || v.Sent == 0 || !v.Shown:
			return fmt.Sprintf("%+v", v)
		case !strings.Contains(v.Text, oid[:8]):
			return fmt.Sprintf("the page says %q, not the observer's ID %s", v.Text, oid[:8])
		}
		for _, n := range v.Neighbors {
			if n == oid {
				t.Fatalf("the observer is among the tab's neighbours %v", v.Neighbors)
			}
		}
		return ""
	})
}
