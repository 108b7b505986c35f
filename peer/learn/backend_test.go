package learn

import (
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// namedTrainer is an external backend that names itself.
type namedTrainer struct{ *nn.Trainer }

func (namedTrainer) String() string { return "test-engine/dev0" }

// Backend names the engine: the pure-Go trainer, an external backend by
// its String, or "external" for one that does not name itself.
func TestBackendName(t *testing.T) {
	tk := newTask(t, 3, 10, 9)
	external := func(named bool) func(int, *Config) {
		return func(_ int, c *Config) {
			c.NewBackend = func(arch nn.Arch, opt nn.Optimizer) (nn.Backend, error) {
				m, err := nn.NewModel(arch)
				if err != nil {
					return nil, err
				}
				tr, err := nn.NewTrainer(m, opt)
				if err != nil || !named {
					return tr, err
				}
				return namedTrainer{tr}, nil
			}
		}
	}
	for _, c := range []struct {
		edit func(int, *Config)
		want string
	}{
		{nil, "go"},
		{external(true), "test-engine/dev0"},
		{external(false), "external"},
	} {
		if got := newPeers(t, tk, c.edit)[0].Backend(); got != c.want {
			t.Errorf("Backend() = %q, want %q", got, c.want)
		}
	}
}

// sourcedTrainer is an external backend that takes its Dropout masks'
// generator, as the libtorch companion does.
type sourcedTrainer struct {
	*nn.Trainer
	src *rand.Rand
}

func (s *sourcedTrainer) SetDropoutSource(r *rand.Rand) { s.src = r }

// An external backend with Dropout draws the masks the peer's own model
// would (its generator, from the peer's seed), not a seed of its own that
// every companion peer would share; so does a peer started from declared
// weights, which trains.
func TestBackendDropoutSource(t *testing.T) {
	tk := newTask(t, 2, 20, 9)
	tk.arch = nn.Arch{Name: "drop", Input: tk.arch.Input, Classes: tk.arch.Classes,
		Layers: []nn.LayerSpec{nn.Flatten(), nn.Dense(16), nn.ReLU(), nn.Dropout(0.5), nn.Dense(tk.arch.Classes)}}
	var backends []*sourcedTrainer
	peers := newPeers(t, tk, func(_ int, c *Config) {
		c.NewBackend = func(arch nn.Arch, opt nn.Optimizer) (nn.Backend, error) {
			m, err := nn.NewModel(arch)
			if err != nil {
				return nil, err
			}
			tr, err := nn.NewTrainer(m, opt)
			st := &sourcedTrainer{Trainer: tr}
			backends = append(backends, st)
			return st, err
		}
	})
	for i, p := range peers {
		if backends[i].src == nil || backends[i].src != p.model.DropoutSource() {
			t.Fatalf("peer %d: the backend's Dropout source is %p, the model's %p", i, backends[i].src, p.model.DropoutSource())
		}
	}
	if backends[0].src.Uint64() == backends[1].src.Uint64() {
		t.Error("two peers' Dropout sources draw the same")
	}

	w := make([]float32, peers[0].model.NumParams())
	for i := range w {
		w[i] = float32(i%13) / 50
	}
	p := newPeers(t, tk, func(_ int, c *Config) { c.Init = Init{Mode: InitWeights, Weights: w} })[0]
	work, err := p.SyncWork(nil)
	if err != nil {
		t.Fatal(err)
	}
	work.Run()
	if err := work.Err(); err != nil {
		t.Fatalf("a peer with Dropout started from weights: %v", err)
	}
}
