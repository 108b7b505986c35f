package dflsim

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
)

// Eval says how peers are measured.
type Eval struct {
	// Test is the held-out set.
	Test *data.Dataset
	// Samples, if positive, evaluates only the first Samples test
	// samples (to save time; the same ones every time).
	Samples int
	// Peers, if positive, evaluates only that many peers, evenly spread
	// over the population (the same ones every time); 0 means all.
	Peers int
	// Model chooses which of a peer's models is measured.
	Model Which
}

// Which names one of a peer's models.
type Which uint8

const (
	// Trained is the last published model: the neighbourhood's
	// aggregate after the peer's local training on its own data.
	Trained Which = iota
	// Mixed is the model the last round started training from: the
	// aggregate of the peer's neighbourhood, the counterpart of FedAvg's
	// global model (local training pulls it toward the local labels).
	Mixed
)

// String names the model.
func (w Which) String() string {
	if w == Mixed {
		return "aggregated"
	}
	return "trained"
}

// of returns p's model of this kind (nil if none yet).
func (w Which) of(p *learn.Peer) []float32 {
	if w == Mixed {
		return p.Mixed()
	}
	return p.Published()
}

func (e Eval) validate() error {
	if e.Test == nil || e.Test.Len() == 0 {
		return fmt.Errorf("%w: no test set", ErrConfig)
	}
	return nil
}

// set returns the evaluated test samples.
func (e Eval) set() ([]float32, []int32) {
	n := e.Test.Len()
	if e.Samples > 0 {
		n = min(n, e.Samples)
	}
	return e.Test.X[:n*e.Test.Features()], e.Test.Y[:n]
}

// chosen returns the indices of the evaluated peers among n.
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

// Point is the state of a run at one moment.
type Point struct {
	// Round is the synchronous round (or, asynchronously, the virtual
	// time in medium-tier periods); Time is the virtual time in seconds
	// (synchronous runs: 0).
	Round float64
	Time  float64
	// Loss and Acc summarise the evaluated peers' test loss and accuracy.
	Loss, Acc learn.Summary
	// Peers is the number of models evaluated (peers without a model
	// yet are skipped).
	Peers int
	// ModelBytes and ControlBytes are the mean bytes sent per peer so far
	// (model payloads; control messages), ModelBytesIn and ControlBytesIn
	// those received. Samples is the mean number of samples trained per
	// peer so far.
	ModelBytes, ControlBytes, Samples float64
	ModelBytesIn, ControlBytesIn      float64
}

// probe is a Point whose evaluations are under way.
type probe struct {
	pt   Point
	res  []*evalResult
	futs []*Future
}

// evalResult is one evaluation, written by its job only.
type evalResult struct {
	loss, acc float64
	err       error
}

// measure snapshots the peers (counters now; models evaluated on the
// pool) into a probe. It must run on the simulation's goroutine.
func measure(pool *Pool, peers []*learn.Peer, ev Eval, pt Point) *probe {
	pr := &probe{pt: pt}
	counters(peers, &pr.pt)
	for _, i := range ev.chosen(len(peers)) {
		if p := peers[i]; p != nil && ev.Model.of(p) != nil {
			pr.add(pool, p.Config().Arch, ev.Model.of(p), ev)
		}
	}
	pr.pt.Peers = len(pr.futs)
	return pr
}

// add queues the evaluation of one model.
func (pr *probe) add(pool *Pool, arch nn.Arch, params []float32, ev Eval) {
	x, y := ev.set()
	r := &evalResult{}
	pr.res = append(pr.res, r)
	pr.futs = append(pr.futs, pool.Go(func(w *Worker) {
		m, err := w.Evaluate(arch, params, x, y)
		r.loss, r.acc, r.err = m.Loss, m.Accuracy, err
	}))
}

// counters fills pt's per-peer means of the traffic and training counters.
func counters(peers []*learn.Peer, pt *Point) {
	var mb, cb, sm, mi, ci float64
	live := 0
	for _, p := range peers {
		if p == nil {
			continue
		}
		live++
		m := p.Metrics()
		mb += float64(m.ModelBytesSent)
		cb += float64(m.ControlBytesSent)
		sm += float64(m.SamplesTrained)
		mi += float64(m.ModelBytesReceived)
		ci += float64(m.ControlBytesReceived)
	}
	if live > 0 {
		n := float64(live)
		pt.ModelBytes, pt.ControlBytes, pt.Samples = mb/n, cb/n, sm/n
		pt.ModelBytesIn, pt.ControlBytesIn = mi/n, ci/n
	}
}

// wait collects the evaluations.
func (pr *probe) wait() (Point, error) {
	WaitAll(pr.futs)
	loss := make([]float64, len(pr.res))
	acc := make([]float64, len(pr.res))
	for i, r := range pr.res {
		if r.err != nil {
			return pr.pt, fmt.Errorf("dflsim: evaluation: %w", r.err)
		}
		loss[i], acc[i] = r.loss, r.acc
	}
	pr.pt.Loss, pr.pt.Acc = learn.Summarize(loss), learn.Summarize(acc)
	return pr.pt, nil
}

// Measure evaluates every given peer's published model now (peers
// without one are skipped), with the traffic counters; for a final,
// full-test-set measurement after a run.
func Measure(pool *Pool, peers []*learn.Peer, ev Eval) (Point, error) {
	if err := ev.validate(); err != nil {
		return Point{}, err
	}
	return measure(pool, peers, ev, Point{}).wait()
}

// MeasureModel evaluates one parameter vector of arch.
func MeasureModel(pool *Pool, arch nn.Arch, params []float32, ev Eval) (Point, error) {
	if err := ev.validate(); err != nil {
		return Point{}, err
	}
	pr := &probe{}
	pr.add(pool, arch, params, ev)
	pr.pt.Peers = 1
	return pr.wait()
}
