package learn

import (
	"errors"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/protocol/method"
)

// A peer rebuilt from a Checkpoint (a reloaded browser tab) holds the
// same model, optimiser state and counters, offers its model at once and
// goes on counting rounds: MaxRounds counts those before the restart.
func TestCheckpointResume(t *testing.T) {
	tk := newTask(t, 2, 64, 7)
	peers := newPeers(t, tk, nil)
	net := newAsyncNet(t, peers, [][]int{{1}, {0}})
	for i := 0; i < 200 && (peers[0].Metrics().Rounds < 3 || peers[0].Busy()); i++ {
		net.run(1)
	}
	if peers[0].Busy() || peers[0].Metrics().Rounds < 3 {
		t.Fatalf("peer 0: %d rounds, busy %v", peers[0].Metrics().Rounds, peers[0].Busy())
	}
	c, err := peers[0].Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if c.Opt.Kind != "sgd" || len(c.Opt.Buffers) != 1 || !slices.Equal(c.Params, peers[0].Published()) {
		t.Fatalf("checkpoint: %s optimiser, %d buffers, params equal %v", c.Opt.Kind, len(c.Opt.Buffers), slices.Equal(c.Params, peers[0].Published()))
	}

	cfg := testConfig(tk, 0)
	cfg.MEP.MaxRounds = c.Rounds + 2
	p, err := NewPeer(cfg, tk.local[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Resume(c); err != nil {
		t.Fatal(err)
	}
	again, err := p.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if again.Rounds != c.Rounds || again.Samples != c.Samples || !slices.Equal(again.Params, c.Params) ||
		!slices.Equal(again.Opt.Buffers[0], c.Opt.Buffers[0]) {
		t.Fatalf("resumed peer: %d rounds, %d samples (want %d, %d), params or momentum differ", again.Rounds, again.Samples, c.Rounds, c.Samples)
	}
	if err := p.Resume(c); !errors.Is(err, ErrBusy) {
		t.Fatalf("a second Resume: %v, want ErrBusy", err)
	}
	peers[0] = p
	net.peers = peers
	net.link(0, []int{1})
	net.run(1)
	if s := p.MEPStats(); s.OffersSent == 0 || !p.Busy() {
		t.Fatalf("on its first tick the resumed peer offered %d models and started a round: %v (want both)", s.OffersSent, p.Busy())
	}
	for i := 0; i < 400 && !p.Done(); i++ {
		net.run(1)
	}
	if got := p.Metrics().Rounds; !p.Done() || got != c.Rounds+2 {
		t.Fatalf("resumed at %d rounds with MaxRounds %d: done %v after %d rounds", c.Rounds, cfg.MEP.MaxRounds, p.Done(), got)
	}
	if p.Metrics().SamplesTrained <= c.Samples {
		t.Fatalf("samples %d, not beyond the checkpoint's %d", p.Metrics().SamplesTrained, c.Samples)
	}
}

// A checkpoint that does not fit the peer is refused and leaves the peer
// as it was (fresh: it can still resume a good one).
func TestResumeRefused(t *testing.T) {
	tk := newTask(t, 1, 32, 3)
	good := func() Checkpoint {
		n := newPeers(t, tk, nil)[0].NumParams()
		return Checkpoint{Rounds: 4, Samples: 128, Params: make([]float32, n), Opt: nn.OptState{Kind: "sgd", Buffers: [][]float32{make([]float32, n)}}}
	}
	p := newPeers(t, tk, nil)[0]
	short := good()
	short.Params = short.Params[1:]
	adam := good()
	adam.Opt.Kind = "adam"
	neg := good()
	neg.Rounds = -1
	negMethod := good()
	negMethod.Method.Round = -2
	for name, c := range map[string]Checkpoint{"short model": short, "adam state for sgd": adam, "negative rounds": neg, "negative method round": negMethod} {
		if err := p.Resume(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
		if p.Published() != nil || p.Metrics().Rounds != 0 {
			t.Fatalf("%s: a refused checkpoint changed the peer", name)
		}
	}
	if p.MethodProgress() != (method.Progress{}) {
		t.Fatalf("a refused checkpoint left method progress %+v", p.MethodProgress())
	}
	g := good()
	g.Method = method.Progress{Round: 3, Age: 96}
	if err := p.Resume(g); err != nil {
		t.Fatalf("after refusals, a good checkpoint: %v", err)
	}
	if p.Metrics().Rounds != 4 || p.MethodProgress() != g.Method {
		t.Fatalf("rounds %d, method progress %+v; want 4, %+v", p.Metrics().Rounds, p.MethodProgress(), g.Method)
	}
	// The method core's progress goes into the next checkpoint as the
	// runtime records it.
	p.SetMethodProgress(method.Progress{Round: 5})
	if c, err := p.Checkpoint(); err != nil || c.Method != (method.Progress{Round: 5}) {
		t.Fatalf("checkpoint after SetMethodProgress: %+v, %v", c.Method, err)
	}
}

// statefulTrainer is an external backend whose optimiser state the peer
// can reach (as the browser's trainer worker's).
type statefulTrainer struct{ *nn.Trainer }

func (s statefulTrainer) OptState() (nn.OptState, error) { return nn.StateOf(s.Optimizer()) }
func (s statefulTrainer) SetOptState(st nn.OptState, n int) error {
	return nn.SetState(s.Optimizer(), st, n)
}

// plainTrainer hides nn.Trainer's type: an external backend without
// access to its optimiser state.
type plainTrainer struct{ nn.Backend }

// A peer on an external backend checkpoints and resumes through it when
// it is a StatefulBackend (the momentum is the backend's, not the peer's
// unused copy), and refuses both otherwise.
func TestCheckpointExternalBackend(t *testing.T) {
	tk := newTask(t, 2, 64, 7)
	build := func(stateful bool) *Peer {
		cfg := testConfig(tk, 0)
		cfg.NewBackend = func(arch nn.Arch, opt nn.Optimizer) (nn.Backend, error) {
			m, err := nn.NewModel(arch)
			if err != nil {
				return nil, err
			}
			tr, err := nn.NewTrainer(m, opt)
			if err != nil {
				return nil, err
			}
			if stateful {
				return statefulTrainer{tr}, nil
			}
			return plainTrainer{tr}, nil
		}
		p, err := NewPeer(cfg, tk.local[0])
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, stateful := range []bool{true, false} {
		p := build(stateful)
		w, err := p.TrainFrom(p.model.Params())
		if err != nil {
			t.Fatal(err)
		}
		w.Run()
		if err := p.Finish(w); err != nil {
			t.Fatal(err)
		}
		c, err := p.Checkpoint()
		if !stateful {
			if !errors.Is(err, ErrConfig) {
				t.Errorf("checkpoint on a backend without its optimiser state: %v, want ErrConfig", err)
			}
			if err := build(false).Resume(Checkpoint{Params: p.Published()}); !errors.Is(err, ErrConfig) {
				t.Errorf("resume on a backend without its optimiser state: %v, want ErrConfig", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Opt.Buffers) != 1 || !slices.ContainsFunc(c.Opt.Buffers[0], func(v float32) bool { return v != 0 }) {
			t.Fatalf("checkpoint of the backend's optimiser: %d buffers, want its non-zero momentum", len(c.Opt.Buffers))
		}
		q := build(true)
		if err := q.Resume(c); err != nil {
			t.Fatal(err)
		}
		again, err := q.Checkpoint()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(again.Opt.Buffers[0], c.Opt.Buffers[0]) || !slices.Equal(again.Params, c.Params) {
			t.Errorf("resumed on a stateful backend: momentum or params differ")
		}
	}
}
