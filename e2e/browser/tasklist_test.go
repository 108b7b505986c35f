package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestBrowserTaskList: the page lists the server's tasks (GET /tasks)
// instead of asking for a 64-hex ID. A server hosts two tasks; the page,
// opened without ?task=, lists both by name with their data, model,
// method and peers; picking the second fills the Task ID field, and
// Join makes the tab a peer of that task (its status and the page's
// overlay card name it, and the server counts it there).
func TestBrowserTaskList(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	_, sigBin, wasmDir := build(t, dataDir(t))
	origin, ids := startTwoTasks(t, sigBin, wasmDir)

	tb := openTab(t, bin, "tab", origin, origin+"/")
	type listView struct {
		Shown    bool     `json:"shown"`
		Values   []string `json:"values"`
		Texts    []string `json:"texts"`
		Selected string   `json:"selected"`
		Field    string   `json:"field"`
	}
	readList := func() (listView, error) {
		var v listView
		s, err := evalJS[string](tb, `JSON.stringify({shown: !document.getElementById("task-pick").hidden,
			values: [...document.getElementById("task-list").options].map((o) => o.value),
			texts: [...document.getElementById("task-list").options].map((o) => o.textContent),
			selected: document.getElementById("task-list").value, field: document.getElementById("task").value})`)
		if err == nil {
			err = json.Unmarshal([]byte(s), &v)
		}
		return v, err
	}
	var list listView
	waitUntil(t, "the page lists both tasks", 15*time.Second, 100*time.Millisecond, func() string {
		v, err := readList()
		if err != nil || !v.Shown || len(v.Values) != 3 {
			return fmt.Sprintf("%+v %v", v, err)
		}
		list = v
		return ""
	})
	for i, name := range []string{"list-alpha", "list-beta"} {
		if list.Values[i] != ids[i].Hex() {
			t.Errorf("option %d is %s, want %s (%s)", i, list.Values[i], ids[i].Hex(), name)
		}
		if txt := list.Texts[i]; !strings.HasPrefix(txt, name+" ") || !strings.Contains(txt, "mnist") ||
			!strings.Contains(txt, "mlp") || !strings.Contains(txt, "fedlay") || !strings.Contains(txt, "0/100 peers") {
			t.Errorf("option %d reads %q, want %s, mnist, mlp, fedlay, 0/100 peers", i, txt, name)
		}
	}
	if list.Values[2] != "" {
		t.Errorf("last option %q, want the empty 'another task' one", list.Values[2])
	}
	if list.Selected != ids[0].Hex() || list.Field != ids[0].Hex() {
		t.Errorf("without ?task= selected %q, field %q; want the first listed, %s", list.Selected, list.Field, ids[0].Hex())
	}

	// Pick the second task as a volunteer does (the select's change
	// event), then Join.
	beta := ids[1].Hex()
	if _, err := evalJS[bool](tb, fmt.Sprintf(`(() => { const s = document.getElementById("task-list");
		s.value = %q; s.dispatchEvent(new Event("change")); return true; })()`, beta)); err != nil {
		t.Fatal(err)
	}
	if v, err := readList(); err != nil || v.Field != beta {
		t.Fatalf("after picking list-beta the field holds %q (%v), want %s", v.Field, err, beta)
	}
	joinAndWaitTask(t, tb, beta, "list-beta")
	// The server counts the tab in list-beta: the list, fetched again,
	// says so.
	waitUntil(t, "GET /tasks counts the tab in list-beta", 10*time.Second, 100*time.Millisecond, func() string {
		s, err := evalJS[string](tb, `fetch("/tasks").then((r) => r.json()).then((b) => JSON.stringify(b.tasks.map((t) => [t.name, t.peers])))`)
		if err != nil {
			return err.Error()
		}
		if s != `[["list-alpha",0],["list-beta",1]]` {
			return s
		}
		return ""
	})

	// ?task= wins over the list's first entry.
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(origin+"/?task="+beta), chromedp.WaitEnabled("#join")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "?task= selects list-beta", 15*time.Second, 100*time.Millisecond, func() string {
		v, err := readList()
		if err != nil || !v.Shown || v.Selected != beta || v.Field != beta {
			return fmt.Sprintf("%+v %v", v, err)
		}
		return ""
	})
}

// joinAndWaitTask clicks Join and waits until the tab's peer has
// registered in the task hexID named name, as its status and the page's
// overlay card say.
func joinAndWaitTask(t *testing.T, tb *tab, hexID, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	err := chromedp.Do(ctx, chromedp.Click("#join"))
	cancel()
	if err != nil {
		t.Fatalf("click Join: %v", err)
	}
	waitRegistered(t, tb)
	waitUntil(t, "the tab's status names "+name, 15*time.Second, 100*time.Millisecond, func() string {
		s, err := evalJS[string](tb, `JSON.stringify([window.peerlearnPeer.status().task, document.getElementById("task-id").textContent,
			document.getElementById("task-name").textContent])`)
		if err != nil {
			return err.Error()
		}
		var got []string
		if err := json.Unmarshal([]byte(s), &got); err != nil || len(got) != 3 {
			return s
		}
		if got[0] != hexID || got[1] != hexID || got[2] != name {
			return fmt.Sprintf("status task %q, page shows %q %q; want %s %s", got[0], got[1], got[2], hexID, name)
		}
		return ""
	})
}

// TestBrowserTaskListMissing: against a server without GET /tasks (an
// older one; here Chromium answers the page's request with a 404), the
// page shows no list and the Task ID field, open, holding ?task=; Join
// joins that task as before.
func TestBrowserTaskListMissing(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	_, sigBin, wasmDir := build(t, dataDir(t))
	origin, ids := startTwoTasks(t, sigBin, wasmDir)
	var refused atomic.Int32
	refuseTasks := func(ctx context.Context) error {
		paused := chromedp.Events(ctx, fetch.RequestPaused)
		go func() {
			for ev, err := range paused {
				if err != nil {
					return
				}
				refused.Add(1)
				chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: 404,
					Body: []byte("404 page not found\n")})
			}
		}()
		_, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/tasks"}}})
		return err
	}
	beta := ids[1].Hex()
	tb := openTabHooked(t, bin, "tab", origin, origin+"/?task="+beta, false, refuseTasks)
	waitUntil(t, "the page gives up on /tasks", 15*time.Second, 100*time.Millisecond, func() string {
		s, err := evalJS[string](tb, `JSON.stringify([document.getElementById("task-pick").hidden, document.getElementById("task-advanced").open,
			document.getElementById("task").value])`)
		if err != nil {
			return err.Error()
		}
		if want := fmt.Sprintf(`[true,true,%q]`, beta); s != want || refused.Load() == 0 {
			return fmt.Sprintf("[list hidden, field open, field] = %s, want %s; %d /tasks requests refused", s, want, refused.Load())
		}
		return ""
	})
	joinAndWaitTask(t, tb, beta, "list-beta")
}

// startTwoTasks serves e2eSpec as two tasks, list-alpha and list-beta,
// (with the signalling server's flags, if any) and returns the server's
// origin and the tasks' IDs.
func startTwoTasks(t *testing.T, sigBin, wasmDir string, flags ...string) (string, []ident.Task) {
	t.Helper()
	var specs []task.Spec
	var ids []ident.Task
	for _, name := range []string{"list-alpha", "list-beta"} {
		spec, err := task.Parse([]byte(e2eSpec))
		if err != nil {
			t.Fatal(err)
		}
		spec.Name = name
		id, err := spec.ID()
		if err != nil {
			t.Fatal(err)
		}
		specs, ids = append(specs, spec), append(ids, id)
	}
	b, err := json.Marshal(specs)
	if err != nil {
		t.Fatal(err)
	}
	taskFile := filepath.Join(t.TempDir(), "tasks.json")
	if err := os.WriteFile(taskFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, addr := proctest.StartSignalServer(t, "signalserver", sigBin, append([]string{"-web", "../../web", "-wasm", wasmDir, "-task", taskFile}, flags...))
	return "http://" + addr, ids
}
