package methodsim

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
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

// set returns the measured test samples.
func (e Eval) set() ([]float32, []int32) {
	return head(e.Test, e.Samples)
}

// head returns the first n samples of d (all if n <= 0 or n > Len).
func head(d *data.Dataset, n int) ([]float32, []int32) {
	if n <= 0 || n > d.Len() {
		n = d.Len()
	}
	return d.X[:n*d.Features()], d.Y[:n]
}

// chosen returns the indices of the measured peers among n.
func (e Eval) chosen(n int) []int {
	k := n
	if e.Peers > 0 {
		k = min(n, e.Peers)
	}
	out := make([]int, k)
	for i := range out {
		out[i] = i * n / k
	}
	return out
}

// Evaluation is one model measured on one set.
type evaluation struct {
	m   nn.Metrics
	err error
}

// EvaluateAll measures models[i] on (xs[i], ys[i]) on the pool and
// returns their metrics in order.
func EvaluateAll(pool *Pool, arch nn.Arch, models [][]float32, xs [][]float32, ys [][]int32) ([]nn.Metrics, error) {
	res := make([]evaluation, len(models))
	futs := make([]*Future, len(models))
	for i := range models {
		futs[i] = pool.Go(func(w *Worker) {
			res[i].m, res[i].err = w.Evaluate(arch, models[i], xs[i], ys[i])
		})
	}
	WaitAll(futs)
	out := make([]nn.Metrics, len(models))
	for i, r := range res {
		if r.err != nil {
			return nil, fmt.Errorf("methodsim: evaluation %d: %w", i, r.err)
		}
		out[i] = r.m
	}
	return out, nil
}

// measure evaluates the chosen models on e's test set and summarises
// them; models that are nil (a peer without a model yet) are skipped.
func (e Eval) measure(pool *Pool, arch nn.Arch, models [][]float32) (acc, loss learn.Summary, err error) {
	x, y := e.set()
	var ms [][]float32
	for _, i := range e.chosen(len(models)) {
		if models[i] != nil {
			ms = append(ms, models[i])
		}
	}
	xs, ys := make([][]float32, len(ms)), make([][]int32, len(ms))
	for i := range ms {
		xs[i], ys[i] = x, y
	}
	met, err := EvaluateAll(pool, arch, ms, xs, ys)
	if err != nil {
		return acc, loss, err
	}
	a, l := make([]float64, len(met)), make([]float64, len(met))
	for i, m := range met {
		a[i], l[i] = m.Accuracy, m.Loss
	}
	return learn.Summarize(a), learn.Summarize(l), nil
}
