package netpeer

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/gossip"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// methodDriver runs the spec's method.Core on the peer's loop, for every
// method: FedLay's MEP (node.FedLay) as Gossip, D-PSGD, PENS and Plexus.
// The core's peers are the overlay's neighbours, its ticks the
// overlay's, its control messages rtc KindApp frames, its models rtc
// transfers (the header as metadata, the parameters and any Rest as
// payload), its trainings learn.Peer's TrainFrom on the local shard, or
// the Job the core prepared itself (FedLay's aggregate-then-train
// learn.Work), one at a time, on a goroutine.
type methodDriver struct {
	name string
	core method.Core
	// fedlay is core when the method is FedLay's (its status fields).
	fedlay *node.FedLay
	peer   *learn.Peer
	task   ident.Task
	mgr    *rtc.Manager
	logf   func(string, ...any)

	eval    *learn.Evaluator // for the core's Evals, on the local shard's head
	rounds  int              // trainings finished
	refused int              // messages and transfers refused on arrival
	sendErr int
	busy    bool
	// job is the running training a core prepared itself (nil: a
	// TrainFrom of learn.Peer, or none).
	job method.Job
	// trainStart is when the running training was handed out;
	// trainTime and trainSamples sum the finished ones' wall time (to
	// their hand-back on the loop) and samples: the speed this peer
	// actually trained at, load included.
	trainStart   time.Time
	trainTime    time.Duration
	trainSamples int
	// codec, if not nil, carries models in the task's codec (the
	// learner's, wirecodec.go).
	codec *wireCodec
}

// evalSamples bounds the local samples an evaluation for the core runs
// on (the shard's first ones): it runs on the peer's loop.
const evalSamples = 256

// newMethodDriver builds the spec's core for lp; tick is the overlay's
// (FedLay's guard times its bans in it), onDrop hears of a neighbour
// FedLay's guard dropped.
func newMethodDriver(spec task.Spec, lp *learn.Peer, mgr *rtc.Manager, tick time.Duration, onDrop func(ident.Peer, time.Duration), logf func(string, ...any)) (*methodDriver, error) {
	var core method.Core
	var fl *node.FedLay
	var err error
	if spec.MethodOf() == "fedlay" {
		fl, err = node.NewFedLayCore(spec, lp, tick, node.FedLayHooks{OnDrop: onDrop, Tamper: tamper, Logf: logf})
		core = fl
	} else {
		core, err = node.NewCore(spec, lp)
	}
	if err != nil {
		return nil, err
	}
	ev, err := learn.NewEvaluator(lp.Config().Arch)
	if err != nil {
		return nil, err
	}
	tid, err := spec.ID()
	if err != nil {
		return nil, err
	}
	resumeCore(spec.MethodOf(), core, lp, logf) // a resumed peer's round count goes on (methodresume.go)
	return &methodDriver{name: spec.MethodOf(), core: core, fedlay: fl, peer: lp, task: tid, mgr: mgr, eval: ev, logf: logf, rounds: lp.Metrics().Rounds}, nil
}

func (d *methodDriver) setPeers(ids []ident.Peer) {
	if err := d.core.SetPeers(ids); err != nil {
		d.logf("%s: peers: %v", d.name, err)
	}
}

// flush sends what the core wants sent and starts its training.
func (d *methodDriver) flush(workDone chan<- method.Job) {
	for d.core.HasReady() {
		rd := d.core.Ready()
		for _, s := range rd.Sends {
			if err := d.send(s); err != nil {
				d.sendErr++
				d.logf("%s: send to %v: %v", d.name, s.To, err)
			}
		}
		for _, e := range rd.Evals {
			d.evaluate(e)
		}
		if tr := rd.Train; tr != nil {
			d.train(tr, workDone)
		}
	}
}

// evaluate runs an Eval on the loop: a few hundred samples take
// milliseconds (the responder's rate limit bounds how many arrive).
func (d *methodDriver) evaluate(e method.Eval) {
	local := d.peer.Local()
	n := min(local.Len(), evalSamples)
	m, err := d.eval.Evaluate(e.Params, local.X[:n*local.Features()], local.Y[:n])
	samples := m.Samples
	if err != nil {
		d.logf("%s: evaluation: %v", d.name, err)
		samples = 0
	}
	if err := d.core.Evaluated(e.Token, m.Loss, m.Accuracy, samples); err != nil {
		d.logf("%s: evaluated: %v", d.name, err)
	}
}

func (d *methodDriver) send(s method.Send) error {
	if s.Params == nil {
		return d.mgr.SendApp(s.To, s.Header)
	}
	var payload []byte
	if d.codec != nil {
		var err error
		if payload, err = d.codec.encode(s.To, s.Params, s.Rest); err != nil {
			return err
		}
	} else {
		payload = make([]byte, 0, 4*(len(s.Params)+len(s.Rest)))
		for _, v := range [][]float32{s.Params, s.Rest} {
			for _, x := range v {
				payload = binary.LittleEndian.AppendUint32(payload, math.Float32bits(x))
			}
		}
	}
	_, err := d.mgr.SendTransfer(s.To, s.Header, payload, sha256.Sum256(payload), d.task)
	return err
}

// train runs a training on its own goroutine (every core stops asking
// after the spec's MaxRounds): the core's own Job, or learn.Peer's
// TrainFrom of its Params.
func (d *methodDriver) train(tr *method.Train, workDone chan<- method.Job) {
	if tr.Job != nil {
		j := tr.Job
		d.busy, d.job, d.trainStart = true, j, time.Now()
		go func() {
			j.Run()
			workDone <- j // cap 1, one training at a time
		}()
		return
	}
	w, err := d.peer.TrainFrom(tr.Params)
	if err != nil {
		d.logf("%s: train: %v", d.name, err)
		if err := d.core.Trained(nil, 0); err != nil {
			d.logf("%s: %v", d.name, err)
		}
		return
	}
	d.busy, d.trainStart = true, time.Now()
	go func() {
		w.Run()
		workDone <- w // cap 1, one Work at a time
	}()
}

// finish hands the core a training that has run.
func (d *methodDriver) finish(j method.Job) {
	d.busy = false
	d.trainTime += time.Since(d.trainStart)
	d.trainSamples += j.Samples()
	if d.job != nil {
		d.job = nil
		d.rounds++
		if err := d.core.Trained(nil, j.Samples()); err != nil { // the Job holds the result
			d.logf("%s: %v", d.name, err)
		}
		return
	}
	w := j.(*learn.Work) // train's TrainFrom
	var trained []float32
	if err := d.peer.Finish(w); err != nil {
		d.logf("%s: training: %v", d.name, err)
	} else {
		trained = d.peer.Published()
	}
	d.rounds++
	if err := d.core.Trained(trained, w.Samples()); err != nil {
		d.logf("%s: %v", d.name, err)
	}
	keepProgress(d.core, d.peer)
}

// onApp steps the core with a control message.
func (d *methodDriver) onApp(from ident.Peer, b []byte) {
	d.step(from, b, nil)
}

// onTransfer steps the core with a model that arrived intact.
func (d *methodDriver) onTransfer(from ident.Peer, man rtc.Manifest, payload []byte) {
	if man.Task != d.task || (d.codec == nil && len(payload)%4 != 0) {
		d.refused++
		d.logf("%s: dropped a transfer from %v: task %x, %d bytes", d.name, from, man.Task[:4], len(payload))
		return
	}
	if d.codec != nil {
		params, rest, reply, err := d.codec.decode(from, payload, d.peer.NumParams(), restOf(payload))
		if reply != nil && d.mgr != nil {
			if serr := d.mgr.SendApp(from, reply); serr != nil {
				d.logf("%s: codec reply to %v: %v", d.name, from, serr)
			}
		}
		if err != nil {
			d.refused++
			d.logf("%s: dropped a transfer from %v: %v", d.name, from, err)
			return
		}
		if len(rest) > 0 {
			params = append(params, rest...) // the core's header says where its parameters end
		}
		d.step(from, man.Meta, params)
		return
	}
	vals := make([]float32, len(payload)/4)
	for i := range vals {
		vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(payload[4*i:]))
	}
	d.step(from, man.Meta, vals)
}

func (d *methodDriver) step(from ident.Peer, header []byte, params []float32) {
	if err := d.core.Step(from, header, params); err != nil {
		d.refused++
		if !errors.Is(err, gossip.ErrNotForMe) {
			d.logf("%s: dropped a message from %v: %v", d.name, from, err)
		}
	}
}

// roundsDone is the rounds the peer's model has been through: FedLay's
// published rounds, or the trainings finished.
func (d *methodDriver) roundsDone() int {
	if d.fedlay != nil {
		return d.fedlay.Status().Round
	}
	return d.rounds
}
