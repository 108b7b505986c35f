package learn

import (
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
