package learn

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/types/ident"
)

// task is a small synthetic classification problem split non-IID: each
// peer sees only three of the four classes, so a peer alone cannot pass
// ~75% test accuracy and learning from neighbours is what lifts it.
type task struct {
	arch  nn.Arch
	local []*data.Dataset
	test  *data.Dataset
}

const (
	taskClasses  = 4
	taskFeatures = 16
)

var (
	taskNoise float32 = 1.0
)

func newTask(t testing.TB, peers, perPeer int, seed uint64) task {
	t.Helper()
	arch, err := nn.ArchFor("mlp", [3]int{1, taskFeatures, 1}, taskClasses)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 0x7461736b))
	templates := make([]float32, taskClasses*taskFeatures)
	for i := range templates {
		templates[i] = rng.Float32()
	}
	sample := func(d *data.Dataset, c int) {
		for j := range taskFeatures {
			v := templates[c*taskFeatures+j] + taskNoise*(rng.Float32()-0.5)
			d.X = append(d.X, min(max(v, 0), 1))
		}
		d.Y = append(d.Y, int32(c))
	}
	newSet := func(name string) *data.Dataset {
		return &data.Dataset{Name: name, Shape: [3]int{1, taskFeatures, 1}, Classes: taskClasses}
	}
	tk := task{arch: arch, test: newSet("test")}
	for i := range peers {
		d := newSet(fmt.Sprintf("peer%d", i))
		for k := range perPeer {
			sample(d, (i+k%3)%taskClasses)
		}
		tk.local = append(tk.local, d)
	}
	for k := range 400 {
		sample(tk.test, k%taskClasses)
	}
	return tk
}

func peerID(i int) ident.Peer { return ident.Peer{0xbe, byte(i >> 8), byte(i)} }

// testConfig is a fast configuration for the synthetic task.
func testConfig(tk task, i int) Config {
	cfg := DefaultConfig()
	cfg.ID = peerID(i)
	cfg.Arch = tk.arch
	cfg.Seed = uint64(1000 + i)
	cfg.Optimizer = OptimizerConfig{Name: "sgd", LR: 0.1, Momentum: 0.5}
	cfg.Batch = 16
	cfg.LocalEpochs = 1
	cfg.MEP.Period = 4
	cfg.MEP.OfferTimeout = 3
	cfg.MEP.TransferTimeout = 6
	cfg.MEP.JoinWait = 4
	return cfg
}

func newPeers(t testing.TB, tk task, edit func(i int, c *Config)) []*Peer {
	t.Helper()
	peers := make([]*Peer, len(tk.local))
	for i := range peers {
		cfg := testConfig(tk, i)
		if edit != nil {
			edit(i, &cfg)
		}
		p, err := NewPeer(cfg, tk.local[i])
		if err != nil {
			t.Fatal(err)
		}
		peers[i] = p
	}
	return peers
}

// ringPlus links i to i±1 and i±3 (mod n): degree 4, connected.
func ringPlus(n int) [][]int {
	adj := make([][]int, n)
	for i := range n {
		for _, o := range []int{1, 3} {
			for _, j := range []int{(i + o) % n, (i - o + n) % n} {
				if j != i && !contains(adj[i], j) {
					adj[i] = append(adj[i], j)
				}
			}
		}
	}
	return adj
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// asyncNet drives peers in asynchronous mode: messages arrive on the next
// tick, a round's training "takes" trainTicks, and the works due in a tick
// run concurrently (goroutines) when parallel is set.
type asyncNet struct {
	t          testing.TB
	peers      []*Peer
	index      map[ident.Peer]int
	inTransit  []mep.Message
	pending    []pendingWork
	tick       int
	trainTicks int
	parallel   bool
	stepErrs   int
}

type pendingWork struct {
	w   *Work
	due int
}

func newAsyncNet(t testing.TB, peers []*Peer, adj [][]int) *asyncNet {
	n := &asyncNet{t: t, peers: peers, index: map[ident.Peer]int{}, trainTicks: 2}
	for i, p := range peers {
		n.index[p.Config().ID] = i
	}
	for i := range peers {
		n.link(i, adj[i])
	}
	return n
}

// link sets peer i's neighbours.
func (n *asyncNet) link(i int, nbrs []int) {
	ns := make([]mep.Neighbor, len(nbrs))
	for k, j := range nbrs {
		ns[k] = mep.Neighbor{ID: n.peers[j].Config().ID, Period: n.peers[j].Config().MEP.Period}
	}
	if err := n.peers[i].SetNeighbors(ns); err != nil {
		n.t.Fatal(err)
	}
}

func (n *asyncNet) run(ticks int) {
	for range ticks {
		n.tick++
		// Finish the works due now, after running them (all at once).
		var due []*Work
		keep := n.pending[:0]
		for _, pw := range n.pending {
			if pw.due <= n.tick {
				due = append(due, pw.w)
			} else {
				keep = append(keep, pw)
			}
		}
		n.pending = keep
		runAll(due, n.parallel)
		for _, w := range due {
			if err := w.Peer().Finish(w); err != nil {
				n.t.Fatalf("finish: %v", err)
			}
		}
		for _, p := range n.peers {
			if err := p.Tick(); err != nil {
				n.t.Fatal(err)
			}
		}
		arriving := n.inTransit
		n.inTransit = nil
		for _, m := range arriving {
			if err := n.peers[n.index[m.To]].Step(m); err != nil {
				n.stepErrs++
			}
		}
		for _, p := range n.peers {
			rd := p.Ready()
			n.inTransit = append(n.inTransit, rd.Messages...)
			if rd.Work != nil {
				n.pending = append(n.pending, pendingWork{rd.Work, n.tick + n.trainTicks})
			}
		}
	}
}

// runAll runs the works, concurrently if parallel (in reverse order, to
// differ from the sequential order).
func runAll(ws []*Work, parallel bool) {
	if !parallel {
		for _, w := range ws {
			w.Run()
		}
		return
	}
	var wg sync.WaitGroup
	for i := len(ws) - 1; i >= 0; i-- {
		wg.Add(1)
		go func(w *Work) { defer wg.Done(); w.Run() }(ws[i])
	}
	wg.Wait()
}

// syncRounds runs synchronous rounds on the adjacency lists.
func syncRounds(t testing.TB, peers []*Peer, adj [][]int, rounds int, parallel bool) {
	t.Helper()
	for range rounds {
		works := make([]*Work, len(peers))
		for i, p := range peers {
			var nb []aggregate.Contribution
			for _, j := range adj[i] {
				if c, ok := peers[j].Contribution(); ok {
					nb = append(nb, c)
				}
			}
			w, err := p.SyncWork(nb)
			if err != nil {
				t.Fatal(err)
			}
			works[i] = w
		}
		runAll(works, parallel)
		for _, w := range works {
			if err := w.Peer().Finish(w); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// accuracies evaluates every peer's published model on the test set.
func accuracies(t testing.TB, tk task, peers []*Peer) []float64 {
	t.Helper()
	ev, err := NewEvaluator(tk.arch)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(peers))
	for i, p := range peers {
		m, err := ev.Evaluate(p.Published(), tk.test.X, tk.test.Y)
		if err != nil {
			t.Fatalf("peer %d: %v", i, err)
		}
		out[i] = m.Accuracy
	}
	return out
}
