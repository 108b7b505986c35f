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
func (e Eval) set() ([]float32, []int32) { return Head(e.Test, e.Samples) }

// chosen returns the indices of the evaluated peers among n.
func (e Eval) chosen(n int) []int { return Spread(n, e.Peers) }

// Head returns the first n samples of d (all of them if n <= 0 or n >
// d.Len()): a test subset that is the same every time.
func Head(d *data.Dataset, n int) ([]float32, []int32) {
	if n <= 0 || n > d.Len() {
		n = d.Len()
	}
	return d.X[:n*d.Features()], d.Y[:n]
}

// Spread returns the indices of k of n items, evenly spread and the same
// every time (all n if k <= 0 or k > n).
func Spread(n, k int) []int {
	if k <= 0 || k > n {
		k = n
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
	// WireBytes is the mean bytes a peer has sent on the simulated
	// network so far, as encoded on the wire (an AsyncRun's codec shrinks
	// it; ModelBytes counts the parameters as float32 whatever the codec).
	WireBytes                    float64
	ModelBytesIn, ControlBytesIn float64
}

// probe is a Point whose evaluations are under way.
type probe struct {
	pt    Point
	evals evalBatch
}

// evalBatch is evaluations queued on a pool.
type evalBatch struct {
	res  []*evaluation
	futs []*Future
}

// evaluation is one model measured on one set, written by its job only.
type evaluation struct {
	m   nn.Metrics
	err error
}

// add queues the evaluation of params (of arch) on (x, y).
func (b *evalBatch) add(pool *Pool, arch nn.Arch, params, x []float32, y []int32) {
	r := &evaluation{}
	b.res = append(b.res, r)
	b.futs = append(b.futs, pool.Go(func(w *Worker) {
		r.m, r.err = w.Evaluate(arch, params, x, y)
	}))
}

// wait returns the metrics in the order queued, or the first error.
func (b *evalBatch) wait() ([]nn.Metrics, error) {
	WaitAll(b.futs)
	out := make([]nn.Metrics, len(b.res))
	for i, r := range b.res {
		if r.err != nil {
			return nil, fmt.Errorf("dflsim: evaluation %d: %w", i, r.err)
		}
		out[i] = r.m
	}
	return out, nil
}

// EvaluateAll measures models[i] (of arch) on (xs[i], ys[i]) on the pool
// and returns their metrics in order.
func EvaluateAll(pool *Pool, arch nn.Arch, models [][]float32, xs [][]float32, ys [][]int32) ([]nn.Metrics, error) {
	var b evalBatch
	for i := range models {
		b.add(pool, arch, models[i], xs[i], ys[i])
	}
	return b.wait()
}

// Summarize returns the loss and accuracy summaries of ms.
func Summarize(ms []nn.Metrics) (loss, acc learn.Summary) {
	l, a := make([]float64, len(ms)), make([]float64, len(ms))
	for i, m := range ms {
		l[i], a[i] = m.Loss, m.Accuracy
	}
	return learn.Summarize(l), learn.Summarize(a)
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
	pr.pt.Peers = len(pr.evals.res)
	return pr
}

// add queues the evaluation of one model.
func (pr *probe) add(pool *Pool, arch nn.Arch, params []float32, ev Eval) {
	x, y := ev.set()
	pr.evals.add(pool, arch, params, x, y)
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
	ms, err := pr.evals.wait()
	if err != nil {
		return pr.pt, err
	}
	pr.pt.Loss, pr.pt.Acc = Summarize(ms)
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
