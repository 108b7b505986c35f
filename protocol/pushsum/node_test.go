package pushsum

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// net is a synchronous network of nodes on an undirected graph: every
// round each node ticks, then every share is delivered.
type net struct {
	ids   []ident.Peer
	nodes map[ident.Peer]*Node
	adj   map[ident.Peer][]ident.Peer
}

func newNet(t *testing.T, n int, cfg func(ident.Peer) Config) *net {
	t.Helper()
	w := &net{nodes: map[ident.Peer]*Node{}, adj: map[ident.Peer][]ident.Peer{}}
	for i := range n {
		w.add(t, pid(byte(i)), cfg)
	}
	return w
}

func (w *net) add(t *testing.T, id ident.Peer, cfg func(ident.Peer) Config) {
	t.Helper()
	nd, err := New(cfg(id))
	if err != nil {
		t.Fatal(err)
	}
	w.ids, w.nodes[id] = append(w.ids, id), nd
}

func (w *net) link(a, b ident.Peer) {
	if a == b || slices.Contains(w.adj[a], b) {
		return
	}
	w.adj[a], w.adj[b] = append(w.adj[a], b), append(w.adj[b], a)
	w.nodes[a].SetNeighbors(w.adj[a])
	w.nodes[b].SetNeighbors(w.adj[b])
}

// rings links the nodes like FedLay's overlay: L rings, each in a random
// order (its coordinates), every node to its ring predecessor and successor.
func (w *net) rings(l int, rng *rand.Rand) {
	for range l {
		order := slices.Clone(w.ids)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for i := range order {
			w.link(order[i], order[(i+1)%len(order)])
		}
	}
}

func (w *net) round(t *testing.T) {
	t.Helper()
	var all []Message
	for _, id := range w.ids {
		w.nodes[id].Tick()
		all = append(all, w.nodes[id].Ready()...)
	}
	for _, m := range all {
		if err := w.nodes[m.To].Step(m); err != nil {
			t.Fatalf("step %v->%v: %v", m.From, m.To, err)
		}
	}
}

// mass sums the (s, w) of the nodes in the smallest leader's instance.
func (w *net) mass() (s, wt float64, leader ident.Peer) {
	leader = w.ids[0]
	for _, id := range w.ids {
		if bytes.Compare(id[:], leader[:]) < 0 {
			leader = id
		}
	}
	for _, id := range w.ids {
		if nd := w.nodes[id]; nd.Leader() == leader {
			a, b := nd.Mass()
			s, wt = s+a, wt+b
		}
	}
	return s, wt, leader
}

// TestEstimateOnRings: on FedLay-like overlays of 8 to 200 nodes every
// node ends the phase converged, within 1% of n, and mass is conserved.
func TestEstimateOnRings(t *testing.T) {
	for _, n := range []int{8, 10, 12, 50, 200} {
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		w := newNet(t, n, DefaultConfig)
		w.rings(3, rng)
		for r := 0; r < DefaultConfig(pid(0)).MaxRounds; r++ {
			w.round(t)
		}
		s, wt, _ := w.mass()
		if math.Abs(s-float64(n)) > 1e-9*float64(n) || math.Abs(wt-1) > 1e-9 {
			t.Errorf("n=%d: mass (%v, %v), want (%d, 1)", n, s, wt, n)
		}
		for _, id := range w.ids {
			nd := w.nodes[id]
			res := nd.Result()
			if !nd.Done() || !res.OK || !res.Converged || math.Abs(res.Estimate/float64(n)-1) > 0.01 {
				t.Errorf("n=%d: node %v: done %v, result %+v", n, id, nd.Done(), res)
			}
			if res.Rounds >= DefaultConfig(id).MaxRounds/2 {
				t.Errorf("n=%d: node %v took %d rounds", n, id, res.Rounds)
			}
		}
	}
}

// TestLateJoinerWithSmallerID: a node joining after the others have
// estimated, with the smallest ID of all, restarts every node's instance;
// they relay on after Done, so the new estimate reaches n+1 everywhere.
func TestLateJoinerWithSmallerID(t *testing.T) {
	const n = 10
	w := newNet(t, n, DefaultConfig)
	w.rings(2, rand.New(rand.NewPCG(1, 2)))
	for range 100 {
		w.round(t)
	}
	var late ident.Peer // an ID below every other
	late[31] = 1
	before := w.nodes[w.ids[1]].Stats().Restarts
	w.add(t, late, DefaultConfig)
	w.link(late, w.ids[0])
	w.link(late, w.ids[5])
	for range 150 {
		w.round(t)
	}
	for _, id := range w.ids {
		nd := w.nodes[id]
		est, ok := nd.Estimate()
		if nd.Leader() != late || !ok || math.Abs(est/(n+1)-1) > 0.01 {
			t.Errorf("node %v: leader %v, estimate %v %v, want %d", id, nd.Leader(), est, ok, n+1)
		}
	}
	if st := w.nodes[w.ids[1]].Stats(); st.Restarts != before+1 {
		t.Errorf("stats %+v, want one restart more than %d", st, before)
	}
}

// TestBoundedTime: a node whose estimate never settles (no weight ever
// reaches it: its only neighbour's instance has a leader nobody holds)
// ends the phase at MaxRounds, without an estimate.
func TestBoundedTime(t *testing.T) {
	cfg := DefaultConfig(pid(1))
	nd, _ := New(cfg)
	nd.SetNeighbors([]ident.Peer{pid(2)})
	var ghost ident.Peer // smaller than any real ID
	for r := 0; r < cfg.MaxRounds; r++ {
		if nd.Done() {
			t.Fatalf("done after %d rounds", r)
		}
		nd.Tick()
		nd.Ready()
		if err := nd.Step(Message{Type: MsgShare, From: pid(2), To: pid(1), Leader: ghost, S: 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	if res := nd.Result(); !nd.Done() || res.OK || res.Converged || res.Rounds != cfg.MaxRounds {
		t.Fatalf("done %v, result %+v", nd.Done(), res)
	}
	if _, ok := nd.Estimate(); ok {
		t.Fatal("an estimate without weight")
	}
}

// TestRefusals: misaddressed shares and shares beyond a neighbour's
// budget are refused and counted; the budget refills at Rate per Tick.
func TestRefusals(t *testing.T) {
	cfg := DefaultConfig(pid(1))
	nd, _ := New(cfg)
	nd.SetNeighbors([]ident.Peer{pid(2)})
	share := Message{Type: MsgShare, From: pid(2), To: pid(1), Leader: pid(9), S: 0.1, W: 0}
	for _, m := range []Message{
		{Type: MsgShare, From: pid(2), To: pid(3)},
		{Type: MsgShare, From: pid(1), To: pid(1)},
	} {
		if err := nd.Step(m); !errors.Is(err, ErrAddressed) {
			t.Errorf("%+v: %v, want ErrAddressed", m, err)
		}
	}
	bad := share
	bad.W = math.NaN()
	if err := nd.Step(bad); !errors.Is(err, ErrField) {
		t.Errorf("w NaN: %v, want ErrField", err)
	}
	for i := range cfg.Burst {
		if err := nd.Step(share); err != nil {
			t.Fatalf("share %d: %v", i, err)
		}
	}
	if err := nd.Step(share); !errors.Is(err, ErrBudget) {
		t.Fatalf("share beyond the burst: %v, want ErrBudget", err)
	}
	nd.Tick()
	for i := range cfg.Rate {
		if err := nd.Step(share); err != nil {
			t.Fatalf("after a tick, share %d: %v", i, err)
		}
	}
	if err := nd.Step(share); !errors.Is(err, ErrBudget) {
		t.Fatalf("beyond the refill: %v, want ErrBudget", err)
	}
	if st := nd.Stats(); st.Refused != 5 || st.Received+st.Stale != uint64(cfg.Burst+cfg.Rate) {
		t.Fatalf("stats %+v", st)
	}
}

// TestReturnedKeepsMass: a share the transport could not send comes
// back, so the mass stays.
func TestReturnedKeepsMass(t *testing.T) {
	nd, _ := New(DefaultConfig(pid(1)))
	nd.SetNeighbors([]ident.Peer{pid(2), pid(3)})
	nd.Tick()
	for _, m := range nd.Ready() {
		nd.Returned(m)
	}
	if s, w := nd.Mass(); math.Abs(s-1) > 1e-12 || math.Abs(w-1) > 1e-12 {
		t.Fatalf("mass (%v, %v), want (1, 1)", s, w)
	}
}

func TestConfigValidate(t *testing.T) {
	good := DefaultConfig(pid(1))
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, mut := range []func(*Config){
		func(c *Config) { c.ID = ident.Peer{} },
		func(c *Config) { c.Window = 1 },
		func(c *Config) { c.MinRounds = c.Window - 1 },
		func(c *Config) { c.MaxRounds = c.MinRounds - 1 },
		func(c *Config) { c.Tol = 0 },
		func(c *Config) { c.Tol = math.NaN() },
		func(c *Config) { c.Rate = 0 },
		func(c *Config) { c.Burst = c.Rate - 1 },
	} {
		c := good
		mut(&c)
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", c, err)
		}
	}
}
