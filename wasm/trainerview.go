//go:build js && wasm

package main

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/peer/learn"
)

// trainerView says where this tab trains and evaluates
// (peer.status().trainer): "worker" (the trainer worker, with its kernels
// and what it has done) or "main" (the page's thread, with why).
type trainerView struct {
	Where   string `json:"where"`
	Kernels string `json:"kernels"`
	Note    string `json:"note,omitempty"`
	// What the worker reported with its last reply: batches and samples
	// trained, evaluations (the page's, evalLoop's), and its milliseconds
	// training, evaluating, estimating.
	Batches int64   `json:"worker_batches,omitempty"`
	Samples int64   `json:"worker_samples,omitempty"`
	Evals   int64   `json:"worker_evals,omitempty"`
	BusyMS  float64 `json:"worker_busy_ms,omitempty"`
	// PageKernels and PageGemms are the page's own Go instance's: its
	// kernels and the matrix products it has run (f32.GemmCalls: every
	// training step, evaluation or calibration does some; element-wise
	// work such as an aggregation none). While the worker trains, the
	// page's count stays where it was: the page's thread does none of
	// the training (TestTrainerWorker checks it).
	PageKernels string `json:"page_kernels"`
	PageGemms   uint64 `json:"page_gemms"`
}

// calibrateTrainer measures the speed of whatever will train and, with a
// trainer worker, makes cfg train there. A worker that fails here (it
// crashed, or answers nonsense) leaves the tab training on its own
// thread, and the page says why.
func (b *browserPeer) calibrateTrainer(cfg *learn.Config, local *data.Dataset) (float64, error) {
	b.mu.Lock()
	tc := b.trainer
	b.mu.Unlock()
	if tc != nil {
		sps, err := tc.calibrate(*cfg, local)
		if err == nil {
			cfg.NewBackend = tc.newBackend(cfg.Optimizer)
			return sps, nil
		}
		note := fmt.Sprintf("the trainer worker failed (%v): training on the page's thread", err)
		b.progress(note)
		b.mu.Lock()
		b.trainer, b.noWorker = nil, note
		b.mu.Unlock()
	}
	return calibrate(*cfg, local)
}

// workerTrainer returns the trainer worker, or nil where the tab trains
// on its own thread.
func (b *browserPeer) workerTrainer() *trainerConn {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.trainer != nil && b.trainer.Dead() != nil {
		return nil // failed: its backend trains here now (workerBackend.fallback)
	}
	return b.trainer
}

func (b *browserPeer) trainerView() trainerView {
	b.mu.Lock()
	tc, note := b.trainer, b.noWorker
	b.mu.Unlock()
	if tc != nil && tc.Dead() != nil {
		note = fmt.Sprintf("%v: training on the page's thread", tc.Dead())
		tc = nil
	}
	if tc == nil {
		if note == "" {
			note = "no trainer worker given"
		}
		return trainerView{Where: "main", Kernels: f32.Kernels(), Note: note, PageKernels: f32.Kernels(), PageGemms: f32.GemmCalls()}
	}
	st := tc.Stats()
	return trainerView{Where: "worker", Kernels: tc.kernels, Batches: st.Batches, Samples: st.Samples, Evals: st.Evals, BusyMS: st.BusyMS,
		PageKernels: f32.Kernels(), PageGemms: f32.GemmCalls()}
}
