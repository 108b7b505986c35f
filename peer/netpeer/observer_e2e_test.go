package netpeer

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// An observer that does not behave: on every model it pulls it sends
// the peer an MEP offer and a model transfer of its own. Two in-process
// peers train; each serves the observer (Status.Observers), counts what
// it sent as refused (ObserverRefused) before the MEP could see it, and
// has no overlay neighbour but the other peer: the observer took no place
// and nothing of it reached an aggregation.
func TestObserverCannotPushModels(t *testing.T) {
	url, tid := startSignal(t, "netpeer-observer", func(s *task.Spec) {
		s.PeriodMS, s.LocalEpochs, s.LocalSteps, s.Aggregator = 500, 0, 5, "fedlay"
	})
	log := &testLog{}
	test := synthetic(200, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 7)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
		if t.Failed() {
			log.dump(t)
		}
	}()
	run := func(p *Peer) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Run(ctx); err != nil {
				t.Errorf("%v: %v", p.ID(), err)
			}
		}()
	}
	const n = 2
	peers := make([]*Peer, n)
	for i := range n {
		cfg := testPeerConfig(t, url, tid, 300+i, log)
		cfg.Learn = &LearnConfig{Build: func(spec task.Spec, id ident.Peer) (*learn.Peer, *data.Dataset, error) {
			train := synthetic(300, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, uint64(i))
			lc, err := node.LearnerConfig(spec, id, train, cfg.Tick)
			if err != nil {
				return nil, nil, err
			}
			lp, err := learn.NewPeer(lc, train)
			return lp, test, err
		}}
		p, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		peers[i] = p
		run(p)
	}
	pollUntil(t, 60*time.Second, 100*time.Millisecond, func() (bool, string) {
		for _, p := range peers {
			if s := p.Status(); len(s.Neighbors) != n-1 {
				return false, "peers not linked"
			}
		}
		return true, ""
	})

	var pushed atomic.Int64
	cfg := testPeerConfig(t, url, tid, 399, log)
	var obs *Peer
	oc := DefaultObserveConfig()
	oc.PullEvery = 200 * time.Millisecond
	oc.Accept = func(spec task.Spec) (int, error) {
		a, err := node.LearnerConfig(spec, obs.ID(), synthetic(10, []int{0}, 1), cfg.Tick)
		if err != nil {
			return 0, err
		}
		n, err := a.Arch.NumParams()
		return n, err
	}
	oc.OnModel = func(m ObservedModel) { // on the observer's loop: its mgr is set
		offer, _ := mep.Encode(mep.Message{Type: mep.MsgOffer, From: obs.ID(), Version: 1, Fingerprint: mep.FingerprintOf(m.Params, nil)})
		hdr, _ := mep.Encode(mep.Message{Type: mep.MsgModel, From: obs.ID(), Version: 1, Fingerprint: mep.FingerprintOf(m.Params, nil),
			Model: mep.ModelHeader{Task: tid, Arch: m.Arch, NumParams: uint32(len(m.Params)), DataSize: 1 << 20, Period: 5, DataConf: 1}})
		payload := make([]byte, 4*len(m.Params)) // all zeros: a model that would pull an average to 0
		if obs.mgr.SendApp(m.From, offer) == nil {
			pushed.Add(1)
		}
		if _, err := obs.mgr.SendTransfer(m.From, hdr, payload, mep.FingerprintOf(make([]float32, len(m.Params)), nil), tid); err == nil {
			pushed.Add(1)
		}
	}
	cfg.Observe = &oc
	obs, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	run(obs)
	oid := hexID(obs.ID())
	pollUntil(t, 90*time.Second, 100*time.Millisecond, func() (bool, string) {
		for _, p := range peers {
			s := p.Status()
			served := false
			for _, o := range s.Observers {
				served = served || o.ID == oid && o.ModelsSent > 0
			}
			if !served || s.ObserverRefused < 2 {
				return false, "peer " + s.ID[:8] + ": not yet served the observer and refused what it pushed"
			}
		}
		return true, ""
	})
	if pushed.Load() == 0 {
		t.Fatal("the observer pushed nothing")
	}
	for _, p := range peers {
		s := p.Status()
		for _, nb := range s.Neighbors { // the other peer at most (a loaded machine may be repairing it)
			if nb == oid || nb == s.ID || nb != hexID(peers[0].ID()) && nb != hexID(peers[1].ID()) {
				t.Errorf("%s: neighbours %v, the observer is %s", s.ID[:8], s.Neighbors, oid[:8])
			}
		}
		if s.Learn.ModelsRejected != 0 {
			t.Errorf("%s: the MEP saw models it rejected (%d): the observer's reached it", s.ID[:8], s.Learn.ModelsRejected)
		}
	}
	if s := obs.Status(); s.State != "observing" || s.Observe == nil || s.Observe.ModelsReceived == 0 {
		t.Errorf("observer status %+v", s.Observe)
	}
}
