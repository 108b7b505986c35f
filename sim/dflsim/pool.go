package dflsim

import (
	"runtime"
	"sync"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
)

// Pool runs jobs on a fixed set of worker goroutines. Each worker keeps
// its own evaluators, so evaluation jobs share no model. Jobs write only
// to their own results and callers apply results in a fixed order, so a
// run does not depend on the number of workers.
type Pool struct {
	jobs chan func(*Worker)
	wg   sync.WaitGroup
}

// Worker is one worker goroutine's state; only its goroutine uses it.
type Worker struct {
	evals map[string]*learn.Evaluator
}

// Evaluate measures params of arch on (x, y) with the worker's own
// evaluator for arch.
func (w *Worker) Evaluate(arch nn.Arch, params, x []float32, y []int32) (nn.Metrics, error) {
	tag, err := learn.ArchTag(arch)
	if err != nil {
		return nn.Metrics{}, err
	}
	e := w.evals[tag]
	if e == nil {
		if e, err = learn.NewEvaluator(arch); err != nil {
			return nn.Metrics{}, err
		}
		w.evals[tag] = e
	}
	return e.Evaluate(params, x, y)
}

// NewPool starts n workers (n < 1: one per core).
func NewPool(n int) *Pool {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	p := &Pool{jobs: make(chan func(*Worker), 4096)}
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			w := &Worker{evals: map[string]*learn.Evaluator{}}
			for job := range p.jobs {
				job(w)
			}
		}()
	}
	return p
}

// Close waits for the queued jobs and stops the workers.
func (p *Pool) Close() {
	close(p.jobs)
	p.wg.Wait()
}

// Future is a job's completion.
type Future struct{ done chan struct{} }

// Wait blocks until the job has run.
func (f *Future) Wait() { <-f.done }

// Go queues job.
func (p *Pool) Go(job func(*Worker)) *Future {
	f := &Future{done: make(chan struct{})}
	p.jobs <- func(w *Worker) {
		defer close(f.done)
		job(w)
	}
	return f
}

// Run queues a learn.Work.
func (p *Pool) Run(w *learn.Work) *Future {
	return p.Go(func(*Worker) { w.Run() })
}

// WaitAll waits for every future.
func WaitAll(fs []*Future) {
	for _, f := range fs {
		f.Wait()
	}
}
