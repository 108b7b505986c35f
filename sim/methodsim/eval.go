package methodsim

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/sim/dflsim"
)

// Eval says how models are measured during a run.
type Eval struct {
	// Test is the held-out set.
	Test *data.Dataset
	// Samples, if positive, uses only the first Samples test samples
	// (the same ones every time).
	Samples int
	// Peers, if positive, measures only that many peers' models, evenly
	// spread over the population (the same ones every time); 0: all.
	Peers int
}

func (e Eval) validate() error {
	if e.Test == nil || e.Test.Len() == 0 {
		return fmt.Errorf("%w: no test set", ErrConfig)
	}
	return nil
}

// measure evaluates the chosen models on e's test set and summarises
// them; models that are nil (a peer without a model yet) are skipped.
func (e Eval) measure(pool *Pool, arch nn.Arch, models [][]float32) (acc, loss learn.Summary, err error) {
	x, y := dflsim.Head(e.Test, e.Samples)
	var ms [][]float32
	for _, i := range dflsim.Spread(len(models), e.Peers) {
		if models[i] != nil {
			ms = append(ms, models[i])
		}
	}
	xs, ys := make([][]float32, len(ms)), make([][]int32, len(ms))
	for i := range ms {
		xs[i], ys[i] = x, y
	}
	met, err := dflsim.EvaluateAll(pool, arch, ms, xs, ys)
	if err != nil {
		return acc, loss, err
	}
	loss, acc = dflsim.Summarize(met)
	return acc, loss, nil
}
