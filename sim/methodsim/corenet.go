package methodsim

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/sim/dflsim"
)

// coreNet drives one method.Core per peer over an eventSim: what a core
// sends is delivered to the addressee's core when Links says it arrives
// (Send.Bytes on the wire), what it asks to train runs on the peer's
// compute (learn.Peer.TrainFrom, or the core's own Job: FedLay's round)
// and is reported back. It is the
// simulator's counterpart of peer/node's Method (which node.Node drives): the method's
// logic is the core's alone.
type coreNet struct {
	sim   *eventSim
	cores []method.Core
	// stepErrors counts messages a core refused; err is the first
	// failure of a core to take a training back.
	stepErrors int
	err        error
	// evalSamples bounds the local samples an Eval runs on (the shard's
	// first ones, as node.Method does).
	evalSamples int
	// after, if not nil, runs once peer i's core has nothing ready (a
	// scenario driver measures there).
	after func(i int)
	// codecs, if not nil, carry models compressed (CoreRun.Codec).
	codecs *linkCodecs
}

// tick ticks every core and carries out what each wants done.
func (c *coreNet) tick() {
	for i, core := range c.cores {
		core.Tick()
		c.drain(i)
	}
}

// drain carries out everything peer i's core has ready.
func (c *coreNet) drain(i int) {
	core := c.cores[i]
	for core.HasReady() {
		rd := core.Ready()
		for _, s := range rd.Sends {
			to, ok := c.sim.peers.Index[s.To]
			if !ok {
				c.fail(fmt.Errorf("%w: peer %d sent to an unknown peer", ErrRun, i))
				return
			}
			from := c.sim.peers.IDs[i]
			deliver := func(params []float32) {
				if err := c.cores[to].Step(from, s.Header, params); err != nil {
					c.stepErrors++
				}
				c.drain(to)
			}
			if c.codecs != nil && s.Params != nil {
				c.sendModel(i, to, s.Header, s.Params, s.Rest, deliver)
				continue
			}
			c.sim.send(i, to, s.Bytes(), s.Params != nil, func() { deliver(withRest(s.Params, s.Rest)) })
		}
		for _, e := range rd.Evals {
			c.evaluate(i, e)
		}
		if tr := rd.Train; tr != nil {
			c.sim.train(i, trainReq{params: tr.Params, job: tr.Job, done: func(trained []float32, samples int) {
				if err := core.Trained(trained, samples); err != nil {
					c.fail(fmt.Errorf("%w: peer %d: %w", ErrRun, i, err))
				}
				c.drain(i)
			}})
		}
	}
	if c.after != nil {
		c.after(i)
	}
}

func (c *coreNet) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// evaluate runs peer i's core's Eval at once (instant in virtual time, as
// on a real peer's loop) on the head of its local data.
func (c *coreNet) evaluate(i int, e method.Eval) {
	p := c.sim.peers
	x, y := dflsim.Head(p.Local[i], c.evalSamples)
	var m nn.Metrics
	var err error
	c.sim.pool.Go(func(w *Worker) { m, err = w.Evaluate(p.Peers[i].Config().Arch, e.Params, x, y) }).Wait()
	samples := m.Samples
	if err != nil {
		samples = 0
	}
	c.sim.ledger.Evaluate(i, samples)
	if err := c.cores[i].Evaluated(e.Token, m.Loss, m.Accuracy, samples); err != nil {
		c.fail(fmt.Errorf("%w: peer %d: %w", ErrRun, i, err))
	}
}
