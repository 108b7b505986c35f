package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
	"github.com/peerlearn/peerlearn/types/ident"
)

// postTask POSTs body to /tasks (with Origin when origin is not empty)
// and returns the status and the body.
func postTask(t *testing.T, ts *testServer, body []byte, origin string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.httpURL()+"/tasks", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

// specJSON is a valid spec named name (mutate may change it) and its ID.
func specJSON(t *testing.T, name string, mutate ...func(*task.Spec)) ([]byte, ident.Task) {
	t.Helper()
	spec, id := servertest.Task(t, name, mutate...)
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return b, id
}

// startCreating serves a server whose pages may create tasks (at most
// max, perAddr per address, loopback counted like any address).
func startCreating(t *testing.T, max, perAddr int) *testServer {
	return startServer(t, func(c *Config) {
		c.TaskCreate = TaskCreateConfig{Enabled: true, Max: max, PerAddr: perAddr, Idle: time.Minute}
		c.AddrLimits.Exempt = nil
	})
}

// Off by default: POST /tasks is refused (403, counted "off"), and the
// list tells the page nothing about creating.
func TestTaskCreateOffByDefault(t *testing.T) {
	ts := startServer(t, nil)
	body, _ := specJSON(t, "mine")
	code, text := postTask(t, ts, body, "")
	if code != http.StatusForbidden || !strings.Contains(text, "-task-create") {
		t.Fatalf("POST /tasks on a default server: %d %q, want 403 naming -task-create", code, text)
	}
	if n := ts.Stats().CreateRefused["off"]; n != 1 {
		t.Errorf("refusals counted as off: %d, want 1", n)
	}
	if l := getTasks(t, ts); l.Create != nil || l.Total != 1 {
		t.Errorf("list %+v: want one task and no create info", l)
	}
}

// A created task is listed (as created), joined like a hosted one, and
// creating the same spec again creates nothing.
func TestTaskCreateHostsTheTask(t *testing.T) {
	ts := startCreating(t, 4, 2)
	l := getTasks(t, ts)
	if l.Create == nil || l.Create.Left != 4 || !strings.Contains(strings.Join(l.Create.Datasets, ","), "mnist") {
		t.Fatalf("create info %+v, want 4 left and mnist", l.Create)
	}
	body, id := specJSON(t, "mine", func(s *task.Spec) { s.Method = "gossip"; s.Aggregator = "mean"; s.MaxPeers = 20 })
	code, text := postTask(t, ts, body, "http://"+ts.addr)
	if code != http.StatusCreated {
		t.Fatalf("POST /tasks: %d %s", code, text)
	}
	var got TaskCreated
	if err := json.Unmarshal([]byte(text), &got); err != nil || got.ID != id.Hex() || got.Name != "mine" || got.Existing {
		t.Fatalf("created %+v (%v), want ID %s, name mine, new", got, err, id.Hex())
	}
	l = getTasks(t, ts)
	if l.Total != 2 || l.Create.Left != 3 {
		t.Fatalf("after creating: %+v", l)
	}
	var listed *TaskInfo
	for i := range l.Tasks {
		if l.Tasks[i].ID == id.Hex() {
			listed = &l.Tasks[i]
		}
	}
	if listed == nil || !listed.Created || listed.Method != "gossip" || listed.MaxPeers != 20 {
		t.Fatalf("created task listed as %+v", listed)
	}
	for _, other := range l.Tasks {
		if other.ID != id.Hex() && other.Created {
			t.Errorf("the operator's task %s is listed as created", other.Name)
		}
	}

	c, err := signal.Dial(context.Background(), ts.wsURL(), identity(t, 7), id, clientConfig())
	if err != nil {
		t.Fatalf("joining the created task: %v", err)
	}
	defer c.Close()
	if w := c.Welcome(); w.Task.Name != "mine" || w.Task.Method != "gossip" {
		t.Fatalf("welcome %+v: want the created spec", w)
	}

	code, text = postTask(t, ts, body, "")
	if err := json.Unmarshal([]byte(text), &got); code != http.StatusOK || err != nil || !got.Existing || got.ID != id.Hex() {
		t.Fatalf("creating it again: %d %s, want 200 existing", code, text)
	}
	if st := ts.Stats(); st.TasksCreated != 1 || st.TaskNames[id] != "mine" {
		t.Errorf("stats: created %d, name %q; want 1, mine", st.TasksCreated, st.TaskNames[id])
	}
}

// Bad specs get 400 with the spec's own error (naming the field), and
// what a created task may not ask of the server is refused; each is
// counted by reason, and nothing is hosted.
func TestTaskCreateRefusals(t *testing.T) {
	ts := startCreating(t, 4, 4)
	big := bytes.Repeat([]byte(" "), maxTaskBody+1)
	for _, c := range []struct {
		name   string
		body   []byte
		origin string
		code   int
		says   string
		reason string
	}{
		{"not JSON", []byte("{"), "", http.StatusBadRequest, "", "bad-spec"},
		{"unknown field", []byte(`{"version":2,"name":"x","nope":1}`), "", http.StatusBadRequest, "nope", "bad-spec"},
		{"bad value", bytes.Replace(must(specJSON(t, "lr")), []byte(`"lr":0.05`), []byte(`"lr":-1`), 1), "", http.StatusBadRequest, "lr", "bad-spec"},
		{"too big", big, "", http.StatusRequestEntityTooLarge, "bytes", "bad-spec"},
		{"harder proof of work", must(specJSON(t, "pow", func(s *task.Spec) { s.Admission = &task.Admission{PoWBits: 20} })), "",
			http.StatusBadRequest, "pow_bits", "not-allowed"},
		{"own data", must(specJSON(t, "own", func(s *task.Spec) {
			s.Dataset, s.Arch = "", ""
			s.Model = &task.Model{Input: []int{4, 1, 1}, Classes: []string{"a", "b"}, Layers: []task.Layer{{Type: "flatten"}, {Type: "dense", Units: 2}}}
			s.Data = &task.Data{Manifest: strings.Repeat("ab", 32), URL: "https://example.org/d.json"}
		})), "", http.StatusBadRequest, "data", "not-allowed"},
		{"initial weights", must(specJSON(t, "weights", func(s *task.Spec) {
			s.Arch = ""
			s.Model = &task.Model{Input: []int{28, 28, 1}, Classes: strings.Split("0123456789", ""),
				Layers: []task.Layer{{Type: "flatten"}, {Type: "dense", Units: 10}}, Weights: &task.Weights{URL: "https://example.org/w.safetensors", SHA256: strings.Repeat("0f", 32)}}
		})), "", http.StatusBadRequest, "weights", "not-allowed"},
		{"more peers than the server", must(specJSON(t, "many", func(s *task.Spec) { s.MaxPeers = 5000 })), "",
			http.StatusBadRequest, "max_peers", "not-allowed"},
		{"foreign page", must(specJSON(t, "csrf")), "http://evil.example", http.StatusForbidden, "origin", "not-allowed"},
	} {
		before := ts.Stats().CreateRefused[c.reason]
		code, text := postTask(t, ts, c.body, c.origin)
		if code != c.code || !strings.Contains(text, c.says) {
			t.Errorf("%s: %d %q, want %d saying %q", c.name, code, text, c.code, c.says)
		}
		if n := ts.Stats().CreateRefused[c.reason]; n != before+1 {
			t.Errorf("%s: %s refusals %d, want %d", c.name, c.reason, n, before+1)
		}
	}
	if l := getTasks(t, ts); l.Total != 1 || l.Create.Left != 4 {
		t.Errorf("after refusals: %+v, want only the operator's task", l)
	}
}

func must(b []byte, _ ident.Task) []byte { return b }

// The server holds at most Max created tasks and PerAddr per client
// address; a created task empty for Idle is dropped and its slot freed.
func TestTaskCreateBudgets(t *testing.T) {
	ts := startCreating(t, 2, 1)
	var mu sync.Mutex
	now := time.Unix(1_000_000, 0)
	ts.Server.mu.Lock()
	ts.Server.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ts.Server.mu.Unlock()
	step := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

	a, aID := specJSON(t, "a")
	if code, text := postTask(t, ts, a, ""); code != http.StatusCreated {
		t.Fatalf("first: %d %s", code, text)
	}
	b, _ := specJSON(t, "b")
	if code, text := postTask(t, ts, b, ""); code != http.StatusTooManyRequests || !strings.Contains(text, "your address") {
		t.Fatalf("second from the same address: %d %q, want 429", code, text)
	}
	if n := ts.Stats().CreateRefused["per-address"]; n != 1 {
		t.Errorf("per-address refusals %d, want 1", n)
	}

	// A peer keeps task a alive past Idle; after it leaves, a lives Idle
	// more, then goes, and the address may create again.
	c, err := signal.Dial(context.Background(), ts.wsURL(), identity(t, 9), aID, clientConfig())
	if err != nil {
		t.Fatal(err)
	}
	step(2 * time.Minute)
	if l := getTasks(t, ts); l.Total != 2 {
		t.Fatalf("a task with a peer was dropped: %+v", l)
	}
	c.Close()
	eventually(t, "the peer gone", func() bool { return ts.Stats().Peers[aID] == 0 })
	step(30 * time.Second)
	if l := getTasks(t, ts); l.Total != 2 {
		t.Fatalf("dropped 30 s after its last peer left (idle 1 min): %+v", l)
	}
	step(31 * time.Second)
	if l := getTasks(t, ts); l.Total != 1 || l.Create.Left != 2 {
		t.Fatalf("not dropped 61 s after its last peer left: %+v", l)
	}
	if code, text := postTask(t, ts, b, ""); code != http.StatusCreated {
		t.Fatalf("after the drop: %d %s", code, text)
	}

	// Max in all: with room per address, the third created task is
	// refused.
	ts = startCreating(t, 2, 10)
	if code, text := postTask(t, ts, a, ""); code != http.StatusCreated {
		t.Fatalf("first of two: %d %s", code, text)
	}
	if code, text := postTask(t, ts, b, ""); code != http.StatusCreated {
		t.Fatalf("second of two: %d %s", code, text)
	}
	third, _ := specJSON(t, "c")
	if code, text := postTask(t, ts, third, ""); code != http.StatusServiceUnavailable || !strings.Contains(text, "try later") {
		t.Fatalf("third of two: %d %q, want 503", code, text)
	}
	if n := ts.Stats().CreateRefused["full"]; n != 1 {
		t.Errorf("full refusals %d, want 1", n)
	}
}
