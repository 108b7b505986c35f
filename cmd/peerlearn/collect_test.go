package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/export"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
	"github.com/peerlearn/peerlearn/types/ident"
)

// collectTestModels is how many models the test's collector evaluates
// before it stops: enough for a best and a latest that may differ, few
// enough for a loaded machine.
const collectTestModels = 6

// `peerlearn collect` against a live loopback swarm: a signalling server
// and 3 peers (in this process, each with its own WebRTC stack, as
// `peer demo` runs them) train MNIST; the collector joins as an observer,
// evaluates the models it pulls and stops after collectTestModels. Then:
// it got models from at least one peer; best.plnn loads and evaluates to
// the best accuracy progress.csv lists, best.safetensors holds the same
// parameters; every peer's /status lists the collector as an observer
// it sent models to, none has it (or anyone but the other peers) as an
// overlay neighbour, and none refused anything from it (an observer
// sends no model, so none can have been aggregated). (The signalling
// server's side, observer never a contact: signal/server's
// TestObserverNeverAContact.)
func TestCollectLiveSwarm(t *testing.T) {
	root := os.Getenv("PEERLEARN_DATA")
	if root == "" {
		t.Skip("PEERLEARN_DATA not set (make data)")
	}
	train, test, err := data.Load(os.DirFS(root), "mnist")
	if err != nil {
		t.Fatal(err)
	}
	const peers = 3
	spec, tid := servertest.Task(t, "collect-test", func(s *task.Spec) {
		s.LocalEpochs, s.LocalSteps, s.PeriodMS = 0, 20, 1000
		s.Partition = task.Partition{Parts: peers, Seed: 1, Spec: "iid"}
	})
	scfg := server.DefaultConfig()
	scfg.Tasks = []task.Spec{spec}
	srv, err := server.New(scfg)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := servertest.Serve(t, srv)
	url := servertest.SignalURL(addr)
	defer f32.SetThreads(f32.SetThreads(1))

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { stop(); wg.Wait() })
	swarm := make([]*netpeer.Peer, peers)
	for i := range peers {
		id, err := signal.IdentityFromSeed(bytes.Repeat([]byte{byte(i + 1)}, 32))
		if err != nil {
			t.Fatal(err)
		}
		cfg := netpeer.DefaultConfig()
		cfg.SignalURL, cfg.Task, cfg.Identity = url, tid, id
		cfg.RTC.LoopbackOnly = true
		cfg.Learn = &netpeer.LearnConfig{Build: func(spec task.Spec, pid ident.Peer) (*learn.Peer, *data.Dataset, error) {
			return learnerOn(spec, pid, train, test, "", i, peers, cfg.Tick, nil, func(string, ...any) {})
		}}
		p, err := netpeer.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		swarm[i] = p
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Run(ctx); err != nil {
				t.Errorf("peer %d: %v", i, err)
			}
		}()
	}

	dir := t.TempDir()
	key := filepath.Join(dir, "collector.key")
	seed := bytes.Repeat([]byte{0xc0}, 32)
	if err := os.WriteFile(key, []byte(hex.EncodeToString(seed)), 0o600); err != nil {
		t.Fatal(err)
	}
	obsID, _ := signal.IdentityFromSeed(seed)
	out := filepath.Join(dir, "out")
	var stdout bytes.Buffer
	// -duration bounds a run that goes wrong; the test asserts what the
	// run did, whenever it stopped.
	err = runCollect(context.Background(), []string{"-signal", url, "-task", tid.Hex(), "-data", root, "-o", out,
		"-loopback", "-key", key, "-duration", "4m", "-max-models", strconv.Itoa(collectTestModels),
		"-eval-samples", "1000", "-pull-every", "500ms"}, &stdout, t.Logf)
	t.Log(stdout.String())
	if err != nil {
		t.Fatal(err)
	}

	// progress.csv: a row per model, from the swarm's peers.
	f, err := os.Open(filepath.Join(out, "progress.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) < 2 {
		t.Fatalf("progress.csv: %d rows, %v", len(rows), err)
	}
	if !slices.Equal(rows[0], []string{"time_s", "round", "neighbour", "accuracy", "loss"}) {
		t.Fatalf("progress.csv header %v", rows[0])
	}
	var ids []string
	for _, p := range swarm {
		ids = append(ids, p.ID().Hex())
	}
	best := -1.0
	from := map[string]bool{}
	for _, r := range rows[1:] {
		if !slices.Contains(ids, r[2]) {
			t.Fatalf("progress.csv row from %s, not a peer of the swarm", r[2])
		}
		from[r[2]] = true
		acc, err := strconv.ParseFloat(r[3], 64)
		if err != nil {
			t.Fatal(err)
		}
		best = max(best, acc)
	}
	t.Logf("%d models from %d peers, best %.4f", len(rows)-1, len(from), best)

	// best.plnn evaluates to the best row's accuracy; the safetensors
	// export holds the same parameters.
	b, err := os.ReadFile(filepath.Join(out, "best.plnn"))
	if err != nil {
		t.Fatal(err)
	}
	h, params, err := nn.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	a, err := nn.ArchFor(h.Arch, test.Shape, test.Classes)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := learn.NewEvaluator(a)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ev.Evaluate(params, test.X[:1000*test.Features()], test.Y[:1000])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strconv.FormatFloat(m.Accuracy, 'g', -1, 64), strconv.FormatFloat(best, 'g', -1, 64); got != want {
		t.Errorf("best.plnn evaluates to %s, progress.csv's best is %s", got, want)
	}
	st, err := os.ReadFile(filepath.Join(out, "best.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if sp, err := export.ReadSafetensors(st, a); err != nil || !slices.Equal(sp, params) {
		t.Errorf("best.safetensors: %v, same parameters %v", err, slices.Equal(sp, params))
	}
	for _, name := range []string{"latest.plnn", "best.onnx", "progress.png"} {
		if fi, err := os.Stat(filepath.Join(out, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}

	// The peers: the collector is an observer, never a neighbour, and
	// sent them nothing they refused.
	obs := obsID.ID().Hex()
	served := 0
	for i, p := range swarm {
		s := p.Status()
		// Only peers of the swarm are neighbours (how many at this
		// instant is the overlay's business: a loaded machine may be
		// repairing a falsely failed one).
		for _, n := range s.Neighbors {
			if n == obs || !slices.Contains(ids, n) || n == s.ID {
				t.Errorf("peer %d: neighbour %s is not another peer of the swarm (the observer is %s)", i, n[:8], obs[:8])
			}
		}
		if s.ObserverRefused != 0 || s.PullsRefused != 0 {
			t.Errorf("peer %d refused %d frames and %d pulls from observers", i, s.ObserverRefused, s.PullsRefused)
		}
		for _, o := range s.Observers {
			// A peer counts a model sent when it hands it to the
			// transport: the collector may have stopped before the last
			// arrived, or dropped one while busy. So: some peer that
			// lists it served models that are in the CSV.
			if o.ID == obs && o.ModelsSent > 0 && from[s.ID] {
				served++
			}
		}
	}
	if served == 0 {
		t.Fatalf("no peer lists the observer as served with models in progress.csv (from %d peers)", len(from))
	}
}

// Out-of-range flags are usage errors, refused before anything connects.
func TestCollectFlagsRefused(t *testing.T) {
	out := t.TempDir()
	for _, args := range [][]string{
		{"-max-models", "0"},
		{"-max-models", "100001"},
		{"-duration", "0s"},
		{"-eval-samples", "-1"},
		{"-peers", "0"},
		{"-pull-every", "0s"},
		{"-task", "not-a-task"},
	} {
		err := runCollect(context.Background(), append([]string{"-o", out, "-signal", "ws://127.0.0.1:1/signal"}, args...), io.Discard, t.Logf)
		if !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
