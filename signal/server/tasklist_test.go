package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
)

// getTasks fetches GET /tasks and decodes it, checking the headers.
func getTasks(t *testing.T, ts *testServer) TaskList {
	t.Helper()
	code, h, body := get(t, ts.httpURL()+"/tasks")
	if code != http.StatusOK {
		t.Fatalf("GET /tasks: %d %s", code, body)
	}
	if ct := h.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := h.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	var l TaskList
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		t.Fatalf("GET /tasks: %v in %s", err, body)
	}
	return l
}

// GET /tasks lists both hosted tasks, sorted by name, with their data,
// model, method and codec, and counts each task's peers as they register
// and leave.
func TestTaskListCountsPeers(t *testing.T) {
	beta, betaID := servertest.Task(t, "beta", func(s *task.Spec) {
		s.Method = "gossip"
		s.Aggregator = "mean"
		s.Codec = "delta-int4"
		s.MaxPeers = 40
	})
	ts := startServer(t, func(c *Config) { c.Tasks = append(c.Tasks, beta) }) // "test" and "beta"
	want := func(l TaskList, testPeers, betaPeers int) {
		t.Helper()
		if l.Total != 2 || len(l.Tasks) != 2 {
			t.Fatalf("total %d, %d tasks, want 2: %+v", l.Total, len(l.Tasks), l)
		}
		b, tt := l.Tasks[0], l.Tasks[1]
		if b.Name != "beta" || tt.Name != "test" {
			t.Fatalf("names %q %q, want beta, test (sorted)", b.Name, tt.Name)
		}
		if b.ID != betaID.Hex() || tt.ID != ts.tid.Hex() {
			t.Errorf("IDs %s %s, want %s %s", b.ID, tt.ID, betaID.Hex(), ts.tid.Hex())
		}
		def := task.DefaultSpec()
		if tt.Data != def.Dataset || tt.Model != def.Arch || tt.Method != "fedlay" || tt.Codec != "f32" || tt.MaxPeers != def.MaxPeers {
			t.Errorf("test task described as %+v", tt)
		}
		if b.Method != "gossip" || b.Codec != "delta-int4" || b.MaxPeers != 40 {
			t.Errorf("beta described as %+v", b)
		}
		if tt.Peers != testPeers || b.Peers != betaPeers {
			t.Errorf("peers test=%d beta=%d, want %d %d", tt.Peers, b.Peers, testPeers, betaPeers)
		}
	}
	want(getTasks(t, ts), 0, 0)

	dial(t, ts, 1)
	dial(t, ts, 2)
	c3, err := signal.Dial(context.Background(), ts.wsURL(), identity(t, 3), betaID, clientConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	want(getTasks(t, ts), 2, 1) // Dial returns after the welcome: registered

	c3.Close()
	eventually(t, "beta's peer gone from /tasks", func() bool { return getTasks(t, ts).Tasks[0].Peers == 0 })
	want(getTasks(t, ts), 2, 0)
}

// The list is cut at maxListedTasks; Total still counts every task.
func TestTaskListCapped(t *testing.T) {
	n := maxListedTasks + 3
	ts := startServer(t, func(c *Config) {
		c.Tasks = nil
		for i := range n {
			spec, _ := servertest.Task(t, fmt.Sprintf("t%03d", i))
			c.Tasks = append(c.Tasks, spec)
		}
	})
	l := getTasks(t, ts)
	if l.Total != n || len(l.Tasks) != maxListedTasks {
		t.Fatalf("total %d, listed %d; want %d, %d", l.Total, len(l.Tasks), n, maxListedTasks)
	}
	if l.Tasks[0].Name != "t000" || l.Tasks[maxListedTasks-1].Name != fmt.Sprintf("t%03d", maxListedTasks-1) {
		t.Errorf("listed %s..%s, want the first %d by name", l.Tasks[0].Name, l.Tasks[len(l.Tasks)-1].Name, maxListedTasks)
	}
}

// A task with its own data and a declared model is described as such.
func TestTaskInfoDeclared(t *testing.T) {
	spec := task.DefaultSpec()
	spec.Dataset, spec.Arch = "", ""
	spec.Data = &task.Data{Manifest: "ab"}
	spec.Model = &task.Model{Layers: []task.Layer{{Type: "flatten"}, {Type: "dense", Units: 10}}}
	if got := taskInfo("x", spec); got.Data != "own data" || got.Model != "declared: 2 layers" {
		t.Errorf("described as data %q, model %q", got.Data, got.Model)
	}
	spec.Model = &task.Model{Preset: "small-cnn"}
	if got := taskInfo("x", spec); got.Model != "small-cnn" {
		t.Errorf("preset described as %q", got.Model)
	}
}
