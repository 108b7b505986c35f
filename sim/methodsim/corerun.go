package methodsim

import (
	"context"
	"fmt"
	"time"

	"github.com/peerlearn/peerlearn/engine/modelcodec"
	"github.com/peerlearn/peerlearn/protocol/method"
)

// CoreRun runs any method as its real peers run it: Cores[i] is peer i's
// core, built as a real peer builds it (node.NewCore for the task
// spec), its peers Graph[i] (the overlay's neighbour sets for the peers'
// IDs, which real peers converge to), driven by coreNet over virtual
// time until every core is done (the spec's max_rounds) or Duration.
type CoreRun struct {
	Peers   *Peers
	Devices []Device
	Links   *Links
	Cores   []method.Core
	Graph   [][]int
	// Tick is the cores' tick (the real peers': 100 ms).
	Tick     time.Duration
	Duration time.Duration
	// EvalSamples bounds the local samples a core's Eval runs on.
	EvalSamples int
	Pool        *Pool
	Ctx         context.Context
	// Observe, if not nil, is called after every tick with the virtual
	// time and the ledger so far (a scenario's measurements): true, or
	// an error, ends the run.
	Observe func(now time.Duration, ledger *Ledger) (stop bool, err error)
	// AfterPeer, if not nil, is called whenever peer i's core has done
	// everything it had ready (after each message, training, evaluation
	// and tick it took): a driver reads the core's state there, at every
	// change, not only once a tick.
	AfterPeer func(i int)
	// Codec, if its Kind is not 0, is how models travel: every directed
	// link encodes with it (engine/modelcodec), the bytes on the wire
	// are the encoded ones, and the receiving core gets the decoded
	// copy, as on real peers.
	Codec modelcodec.Config
}

// CoreResult is what a CoreRun did.
type CoreResult struct {
	// Models are the cores' final models.
	Models [][]float32
	// Statuses are the cores' final statuses.
	Statuses   []method.Status
	Ledger     *Ledger
	Time       time.Duration
	StepErrors int
	// TrainFailures counts trainings that failed (the core was handed
	// nil and kept what it trained from).
	TrainFailures int
	// Done: every core finished its rounds within Duration.
	Done bool
	// CodecRefusals counts compressed models a receiver refused (a
	// delta against a reference it did not hold) and the link resent
	// in full.
	CodecRefusals int
}

// Run runs the cores.
func (r CoreRun) Run() (*CoreResult, error) {
	sim, err := newEventSim(r.Peers, r.Devices, r.Links, r.Pool)
	if err != nil {
		return nil, err
	}
	n := r.Peers.N()
	if len(r.Cores) != n || len(r.Graph) != n || r.Tick <= 0 || r.Duration <= 0 || r.EvalSamples < 1 {
		return nil, fmt.Errorf("%w: core run: %d cores, %d neighbour sets for %d peers, tick %v, duration %v",
			ErrConfig, len(r.Cores), len(r.Graph), n, r.Tick, r.Duration)
	}
	net := &coreNet{sim: sim, cores: r.Cores, evalSamples: r.EvalSamples, after: r.AfterPeer}
	if r.Codec.Kind != 0 {
		if net.codecs, err = newLinkCodecs(r.Codec); err != nil {
			return nil, err
		}
	}
	for i, nb := range r.Graph {
		view := r.Peers.IDs[:0:0]
		for _, j := range nb {
			view = append(view, r.Peers.IDs[j])
		}
		if err := r.Cores[i].SetPeers(view); err != nil {
			return nil, fmt.Errorf("peer %d: %w", i, err)
		}
	}
	done := func() bool {
		for _, c := range r.Cores {
			if c.Status().Role != "done" {
				return false
			}
		}
		return true
	}
	for i := range r.Cores {
		net.drain(i) // round 0's training
	}
	finished, stopped := false, false
	var obsErr error
	sim.every(r.Tick, func() bool {
		net.tick()
		finished = finished || done()
		if r.Observe != nil && !stopped && obsErr == nil {
			stopped, obsErr = r.Observe(sim.now(), sim.ledger)
		}
		return true
	})
	more := func() bool {
		return !finished && !stopped && obsErr == nil && net.err == nil && sim.now() < r.Duration
	}
	if err := sim.run(r.Ctx, more); err != nil {
		return nil, err
	}
	if obsErr != nil {
		return nil, obsErr
	}
	res := &CoreResult{Ledger: sim.ledger, Time: sim.now(), StepErrors: net.stepErrors, TrainFailures: sim.failed, Done: finished}
	if net.codecs != nil {
		res.CodecRefusals = net.codecs.refused
	}
	for _, c := range r.Cores {
		res.Models = append(res.Models, c.Model())
		res.Statuses = append(res.Statuses, c.Status())
	}
	return res, net.err
}
