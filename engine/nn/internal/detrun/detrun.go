package detrun

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
)

// Archs are the architectures Run trains: one MLP, one CNN, so Dense,
// Conv2D, MaxPool2D and ReLU are all exercised.
var Archs = []string{"mlp", "small-cnn"}

// Result is one architecture's outcome.
type Result struct {
	Arch string
	// Loss is the mean cross-entropy of the last step's batch (before that step).
	Loss float32
	// Digest fingerprints the parameters after the last step.
	Digest nn.Digest
}

// Run trains each of Archs for steps SGD steps (batch 32, momentum 0.9)
// from seed and returns the results in Archs order.
func Run(seed uint64, steps int) ([]Result, error) {
	var out []Result
	for _, name := range Archs {
		a, err := nn.NewArch(name)
		if err != nil {
			return nil, err
		}
		m, err := nn.NewModel(a)
		if err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		if err := m.Init(rng, nn.HeNormal, nil); err != nil {
			return nil, err
		}
		opt, err := nn.NewSGD(0.01, 0.9, 1e-4)
		if err != nil {
			return nil, err
		}
		tr, err := nn.NewTrainer(m, opt)
		if err != nil {
			return nil, err
		}
		const batch = 32
		syn := data.NewSynthetic(rng, a.Input, a.Classes, 0.6)
		d := syn.Draw(rng, batch*steps, syn.Random(rng))
		x, y := d.X, d.Y
		f := len(x) / len(y)
		var loss float32
		for s := range steps {
			loss, err = tr.TrainBatch(x[s*batch*f:(s+1)*batch*f], y[s*batch:(s+1)*batch])
			if err != nil {
				return nil, fmt.Errorf("%s step %d: %w", name, s, err)
			}
		}
		out = append(out, Result{Arch: name, Loss: loss, Digest: nn.Fingerprint(m.Params())})
	}
	return out, nil
}

// Print writes one line per result: "arch loss-bits loss digest".
func Print(w io.Writer, rs []Result) error {
	for _, r := range rs {
		if _, err := fmt.Fprintf(w, "%s %08x %.9g %x\n", r.Arch, math.Float32bits(r.Loss), r.Loss, r.Digest[:]); err != nil {
			return err
		}
	}
	return nil
}
