package dflsim

import (
	"runtime"
	"sync"

	"github.com/peerlearn/peerlearn/learn"
	"github.com/peerlearn/peerlearn/nn"
)

// Pool runs jobs on a fixed set of worker goroutines. Each worker keeps
// its own evaluators, so evaluation jobs share no model.
type Pool struct {
	jobs chan func(*worker)
	wg   sync.WaitGroup
}

type worker struct {
	evals map[string]*learn.Evaluator
}

// evaluator returns the worker's evaluator for arch.
func (w *worker) evaluator(arch nn.Arch) (*learn.Evaluator, error) {
	tag, err := learn.ArchTag(arch)
	if err != nil {
		return nil, err
	}
	if e := w.evals[tag]; e != nil {
		return e, nil
	}
	e, err := learn.NewEvaluator(arch)
	if err != nil {
		return nil, err
	}
	w.evals[tag] = e
	return e, nil
}

// NewPool starts n workers (n < 1: one per core).
func NewPool(n int) *Pool {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	p := &Pool{jobs: make(chan func(*worker), 4096)}
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			w := &worker{evals: map[string]*learn.Evaluator{}}
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

// submit queues job.
func (p *Pool) submit(job func(*worker)) *Future {
	f := &Future{done: make(chan struct{})}
	p.jobs <- func(w *worker) {
		defer close(f.done)
		job(w)
	}
	return f
}

// Run queues a learn.Work.
func (p *Pool) Run(w *learn.Work) *Future {
	return p.submit(func(*worker) { w.Run() })
}
