package browser

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/protocol/task"
)

// separableCSV is a CSV of n rows, label column y (A or B), four features:
// class A near (1, 0, 0, 0), class B near (0, 1, 0, 0).
func separableCSV(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.WriteString("y,f1,f2,f3,f4\n")
	for i := range n {
		c := i % 2
		f := []float64{0.2 * r.NormFloat64(), 0.2 * r.NormFloat64(), 0.2 * r.NormFloat64(), 0.2 * r.NormFloat64()}
		f[c]++
		fmt.Fprintf(&b, "%s,%.3f,%.3f,%.3f,%.3f\n", []string{"A", "B"}[c], f[0], f[1], f[2], f[3])
	}
	return b.String()
}

// TestBrowserOwnDataCSV (issue #24 item 2): a task on a CSV data set of
// its own, its manifest published by the server. A tab picks the
// volunteer's own CSV of the task's form (read in the tab, never
// uploaded), joins and trains on it; a tab that picks a CSV of another
// form is refused with a message that names what does not fit, and does
// not train.
func TestBrowserOwnDataCSV(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	_, sigBin, wasmDir := build(t, dataDir(t))

	dir := t.TempDir()
	set := filepath.Join(dir, "owncsv")
	if err := os.MkdirAll(set, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, rows := range map[string]string{"train.csv": separableCSV(200, 1), "test.csv": separableCSV(60, 2)} {
		if err := os.WriteFile(filepath.Join(set, name), []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := data.BuildManifest(os.DirFS(set), data.FormatCSV, [3]int{1, 4, 1}, "y")
	if err != nil {
		t.Fatal(err)
	}
	mb, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(set, "manifest.json"), mb, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(mb)
	addr := proctest.FreeAddr(t)
	origin := "http://" + addr
	spec, err := task.Parse([]byte(e2eSpec))
	if err != nil {
		t.Fatal(err)
	}
	spec.Name, spec.Dataset, spec.Arch = "own-csv", "", ""
	spec.Data = &task.Data{Manifest: hex.EncodeToString(sum[:]), URL: origin + "/wasm/data/owncsv/manifest.json"}
	spec.Model = &task.Model{Input: []int{1, 4, 1}, Classes: []string{"A", "B"},
		Layers: []task.Layer{{Type: "flatten"}, {Type: "dense", Units: 8}, {Type: "relu"}, {Type: "dense", Units: 2}}}
	spec.Partition = task.Partition{Parts: 2, Seed: 1, Spec: "iid"}
	id, err := spec.ID()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(spec)
	taskFile := filepath.Join(dir, "task.json")
	if err := os.WriteFile(taskFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	proctest.StartSignalServerAt(t, "signalserver", sigBin, []string{"-web", "../../web", "-wasm", wasmDir, "-data", dir, "-task", taskFile}, addr)

	mine := filepath.Join(t.TempDir(), "mine.csv")
	other := filepath.Join(t.TempDir(), "other.csv")
	if err := os.WriteFile(mine, []byte(separableCSV(120, 3)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("label,f1,f2\nA,1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pick := func(tb *tab, file string) {
		t.Helper()
		waitUntil(t, tb.name+" offers the task's files", 15*time.Second, 100*time.Millisecond, func() string {
			s, err := evalJS[string](tb, `JSON.stringify([document.getElementById("files-box").hidden, document.getElementById("files-form").textContent])`)
			if err != nil || !strings.HasPrefix(s, `[false,"own-csv trains`) {
				return fmt.Sprintf("%s %v", s, err)
			}
			return ""
		})
		ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
		defer cancel()
		if err := chromedp.Do(ctx, chromedp.SetUploadFiles("#own-csv", []string{file})); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, tb.name+" reads the file", 10*time.Second, 100*time.Millisecond, func() string {
			s, err := evalJS[string](tb, `document.getElementById("files-summary").textContent`)
			if err != nil || !strings.HasPrefix(s, "1 file,") {
				return fmt.Sprintf("%q %v", s, err)
			}
			return ""
		})
	}

	good := openTab(t, bin, "own", origin, origin+"/?task="+id.Hex())
	pick(good, mine)
	joinAndWaitTask(t, good, id.Hex(), "own-csv")
	waitUntil(t, "the tab trains on its own CSV", 90*time.Second, 250*time.Millisecond, func() string {
		s, err := evalJS[string](good, `JSON.stringify(window.peerlearnPeer.status())`)
		if err != nil {
			return err.Error()
		}
		var st struct {
			Data struct {
				Source string `json:"source"`
				Shard  string `json:"shard"`
			} `json:"data"`
			Learn struct {
				Rounds int `json:"rounds"`
				Evals  int `json:"evals"`
			} `json:"learn"`
		}
		if err := json.Unmarshal([]byte(s), &st); err != nil || st.Data.Source != "own" || !strings.Contains(st.Data.Shard, "96 own samples (+24 held out)") ||
			st.Learn.Rounds < 1 || st.Learn.Evals < 1 {
			return s
		}
		return ""
	})

	bad := openTab(t, bin, "bad", origin, origin+"/?task="+id.Hex())
	pick(bad, other)
	ctx, cancel := context.WithTimeout(bad.ctx, 10*time.Second)
	err = chromedp.Do(ctx, chromedp.Click("#join"))
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the bad file refused with what does not fit", 60*time.Second, 250*time.Millisecond, func() string {
		s, err := evalJS[string](bad, `document.getElementById("error-list").textContent`)
		if err != nil || !strings.Contains(s, `no "y" column`) || !strings.Contains(s, "other.csv") {
			return fmt.Sprintf("%q %v", s, err)
		}
		return ""
	})
}
