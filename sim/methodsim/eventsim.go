package methodsim

import (
	"context"
	"fmt"
	"time"

	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/sim/simnet"
)

// eventSim is what the asynchronous drivers (Plexus, Gossip Learning)
// share: a simnet scheduler in virtual time, the links that time the
// transfers, the ledger, and every peer's compute, which runs one
// training at a time (later requests wait their turn).
type eventSim struct {
	sched  *simnet.Scheduler
	links  *Links
	ledger *Ledger
	dev    []Device
	peers  *Peers
	pool   *Pool
	queue  [][]trainReq
	busy   []bool
	// failed counts trainings that failed (the peer keeps its model).
	failed int
	// futs are the trainings handed to the pool.
	futs []*Future
}

// trainReq is a training waiting for its peer's compute: params to
// train (learn.Peer.TrainFrom), or a Job the core prepared itself
// (FedLay's aggregate-then-train learn.Work).
type trainReq struct {
	params []float32
	job    method.Job
	// still, if not nil, is asked when the training would start: false
	// drops it (the result is no longer wanted).
	still func() bool
	done  func(trained []float32, samples int)
}

func newEventSim(peers *Peers, dev []Device, links *Links, pool *Pool) (*eventSim, error) {
	if peers == nil || peers.N() < 2 || len(dev) != peers.N() || links == nil || pool == nil {
		return nil, fmt.Errorf("%w: need peers, one device each, links and a pool", ErrConfig)
	}
	n := peers.N()
	return &eventSim{
		sched: simnet.NewScheduler(), links: links, ledger: NewLedger(n), dev: dev, peers: peers, pool: pool,
		queue: make([][]trainReq, n), busy: make([]bool, n),
	}, nil
}

// now is the virtual time.
func (s *eventSim) now() time.Duration { return s.sched.Now() }

// send books a message of bytes from one peer to another, ready now,
// and runs deliver when it arrives.
func (s *eventSim) send(from, to int, bytes int64, model bool, deliver func()) {
	s.ledger.Send(from, to, bytes, model)
	at := s.links.Transfer(from, to, bytes, s.now())
	if err := s.sched.At(at, deliver); err != nil {
		panic(err) // Transfer never returns a time before now
	}
}

// train asks peer i's compute to train params (learn.Peer.TrainFrom)
// when it is free; done gets the trained model (nil if training
// failed) once the device time Device.TrainTime has passed.
func (s *eventSim) train(i int, r trainReq) {
	s.queue[i] = append(s.queue[i], r)
	s.next(i)
}

// next starts peer i's next wanted training if its compute is free.
func (s *eventSim) next(i int) {
	for !s.busy[i] && len(s.queue[i]) > 0 {
		r := s.queue[i][0]
		s.queue[i] = s.queue[i][1:]
		if r.still != nil && !r.still() {
			continue
		}
		if r.job != nil {
			s.runJob(i, r)
			continue
		}
		p := s.peers.Peers[i]
		w, err := p.TrainFrom(r.params)
		if err != nil {
			s.failed++
			continue
		}
		s.busy[i] = true
		fut := s.pool.Run(w)
		s.futs = append(s.futs, fut)
		d := s.dev[i].TrainTime(w.Samples())
		s.sched.After(d, func() {
			fut.Wait()
			s.busy[i] = false
			var trained []float32
			if err := p.Finish(w); err != nil {
				s.failed++
			} else {
				trained = p.Published()
			}
			s.ledger.Train(i, w.Samples(), d)
			r.done(trained, w.Samples())
			s.next(i)
		})
	}
}

// runJob runs a core's own Job on the pool and reports it (done(nil,
// samples): the Job holds the result) once its device time has passed.
func (s *eventSim) runJob(i int, r trainReq) {
	s.busy[i] = true
	j := r.job
	fut := s.pool.Go(func(*Worker) { j.Run() })
	s.futs = append(s.futs, fut)
	d := s.dev[i].TrainTime(j.Samples())
	s.sched.After(d, func() {
		fut.Wait()
		s.busy[i] = false
		if j.Err() != nil {
			s.failed++
		}
		s.ledger.Train(i, j.Samples(), d)
		r.done(nil, j.Samples())
		s.next(i)
	})
}

// wait waits for every training handed to the pool (those still
// running when a run ends are discarded, but must not outlive it).
func (s *eventSim) wait() { WaitAll(s.futs) }

// run executes events while more() holds before each one and events are
// left, checking ctx every 4096 events: it returns ctx's error when the
// run was cancelled. Either way no training is running when it returns.
func (s *eventSim) run(ctx context.Context, more func() bool) error {
	defer s.wait()
	for more() && s.sched.Step() {
		if s.sched.Executed()%4096 == 0 {
			if err := ctxErr(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// every runs fn every period of virtual time, from period on, until fn
// returns false.
func (s *eventSim) every(period time.Duration, fn func() bool) {
	s.sched.After(period, func() {
		if fn() {
			s.every(period, fn)
		}
	})
}

// point snapshots the ledger into a Point (accuracy to be filled).
func (s *eventSim) point(round float64) Point {
	t := s.ledger.Total()
	return Point{Round: round, Time: s.now(), Bytes: t.BytesSent, TrainTime: t.TrainTime, TrainSamples: t.TrainSamples}
}
