package browser

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBrowserTaskCreate (issue #24 item 4): on a server whose operator
// lets pages create tasks (-task-create), a volunteer creates one with
// the page's form: a spec the server refuses is not created and the page
// shows the server's reason, naming the field; a good one is hosted,
// listed as created, selected in the creating tab, and joined by it and
// by a second tab that opens the join link the form shows. Both register
// in the created task (the server counts them), and the second becomes
// an overlay member. The time from Create to the second tab's
// registration is logged (the goal: 10 s); the test asserts the
// mechanism, not a time.
func TestBrowserTaskCreate(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	_, sigBin, wasmDir := build(t, dataDir(t))
	origin, _ := startTwoTasks(t, sigBin, wasmDir, "-task-create")

	ta := openTab(t, bin, "creator", origin, origin+"/")
	waitUntil(t, "the page offers the form", 15*time.Second, 100*time.Millisecond, func() string {
		s, err := evalJS[string](ta, `JSON.stringify([document.getElementById("create-card").hidden,
			document.getElementById("create-method").options.length, document.getElementById("create-dataset").value])`)
		if err != nil || s != `[false,5,"mnist"]` {
			return fmt.Sprintf("%s %v", s, err)
		}
		return ""
	})
	submit := func(name, method string) string {
		t.Helper()
		js := fmt.Sprintf(`(() => {
			document.getElementById("create-details").open = true;
			document.getElementById("create-name").value = %q;
			document.getElementById("create-method").value = %q;
			document.getElementById("create-max-peers").value = "20";
			document.getElementById("create-result").textContent = "";
			document.getElementById("create-form").requestSubmit();
			return true; })()`, name, method)
		if _, err := evalJS[bool](ta, js); err != nil {
			t.Fatal(err)
		}
		var result string
		waitUntil(t, "the form answers", 15*time.Second, 100*time.Millisecond, func() string {
			s, err := evalJS[string](ta, `document.getElementById("create-result").textContent`)
			if err != nil || s == "" || strings.HasPrefix(s, "creating") {
				return fmt.Sprintf("%q %v", s, err)
			}
			result = s
			return ""
		})
		return result
	}

	// A name the spec refuses: nothing is created, the page says why.
	if got := submit("Bad Name", "gossip"); !strings.HasPrefix(got, "Not created") || !strings.Contains(got, "name") {
		t.Fatalf("a bad name: the page says %q, want the server's refusal naming the field", got)
	}
	created := time.Now()
	if got := submit("made-here", "gossip"); !strings.HasPrefix(got, `Created "made-here"`) {
		t.Fatalf("the page says %q, want Created", got)
	}
	var state struct {
		Field string `json:"field"`
		Link  string `json:"link"`
		Tasks []struct {
			ID      string `json:"id"`
			Name    string `json:"name"`
			Method  string `json:"method"`
			Created bool   `json:"created"`
			Peers   int    `json:"peers"`
		} `json:"tasks"`
	}
	read := func() error {
		s, err := evalJS[string](ta, `fetch("/tasks").then((r) => r.json()).then((b) => JSON.stringify({field: document.getElementById("task").value,
			link: document.getElementById("create-link").href, tasks: b.tasks}))`)
		if err == nil {
			err = json.Unmarshal([]byte(s), &state)
		}
		return err
	}
	if err := read(); err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, tk := range state.Tasks {
		if tk.Name == "made-here" {
			id = tk.ID
			if !tk.Created || tk.Method != "gossip" {
				t.Errorf("listed as %+v, want created, gossip", tk)
			}
		}
	}
	if id == "" || state.Field != id || state.Link != origin+"/?task="+id {
		t.Fatalf("after Create: field %q, link %q, list %+v; want the new task's ID in both", state.Field, state.Link, state.Tasks)
	}

	joinAndWaitTask(t, ta, id, "made-here")
	tb := openTab(t, bin, "invited", origin, state.Link)
	joinAndWaitTask(t, tb, id, "made-here")
	t.Logf("second tab registered in the created task %v after Create", time.Since(created).Round(100*time.Millisecond))
	waitUntil(t, "the server counts both tabs in made-here", 15*time.Second, 200*time.Millisecond, func() string {
		if err := read(); err != nil {
			return err.Error()
		}
		for _, tk := range state.Tasks {
			if tk.ID == id && tk.Peers == 2 {
				return ""
			}
		}
		return fmt.Sprintf("%+v", state.Tasks)
	})
	waitUntil(t, "the invited tab links to the creator", 60*time.Second, 200*time.Millisecond, func() string {
		v, err := browserView(tb)
		if err != nil {
			return err.Error()
		}
		if slices.Contains(v.Connections, ta.id) {
			return ""
		}
		return fmt.Sprintf("%+v", v)
	})
	left, err := evalJS[string](ta, `document.getElementById("create-left").textContent`)
	if err != nil || !strings.Contains(left, "15 more") {
		t.Errorf("the form says %q (%v), want 15 more (16 less the one created)", left, err)
	}
}
