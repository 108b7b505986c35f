package netpeer

import (
	"fmt"
	"math"
	"slices"

	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/pushsum"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/theory/initgain"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The topology-aware initialisation on a real peer: a task with init
// "he-gain" and gain 0 asks for the gain 1/‖v_steady‖ of the network it
// runs on, which no peer knows. Every peer of such a task (learning or
// not: a peer that dropped the shares would lose their mass) estimates
// the network size n by push-sum over its overlay links
// (protocol/pushsum), and a learning peer multiplies its seeded He
// initial model by the approximate gain of the FedLay overlay (a method
// core is built again from the scaled model: learner.scaleInit), a
// near-regular graph (degree <= 2L): initgain.Regular, √n, clamped to
// [MinInitGain, MaxInitGain]. Its learner does not start a round before
// that (Peer.training).
//
// The estimate is of the network a peer is in during its first
// estimation rounds (pushsum.DefaultConfig: 5 s to 30 s at 100 ms ticks):
// peers keep relaying shares afterwards, so later joiners get the larger
// n, but a peer never changes the gain it has trained with. A network
// that grows much after its first peers started is under-estimated by
// them (the paper finds training insensitive to moderate errors).
const (
	// MinInitGain and MaxInitGain clamp the gain a peer applies: an
	// attacker can skew push-sum (docs/SECURITY.md), and the paper finds
	// training insensitive to substantial over- or under-estimates of n,
	// not to a gain off by orders of magnitude. 64 is √4096.
	MinInitGain = 1
	MaxInitGain = 64
)

// InitGainStatus is the network-size estimate and the gain, on /status.
type InitGainStatus struct {
	// State: "estimating", "done" (the gain is applied), "fallback"
	// (the phase ended without any estimate: the gain is that of the
	// peers this one knows, a lower bound of n), or "failed" (the model
	// could not be scaled; the peer trains from plain He and says so).
	State string `json:"state"`
	// Estimate is the live push-sum estimate of n (0: none yet); it keeps
	// following the network after the gain is fixed.
	Estimate float64 `json:"estimate"`
	// Used is the estimate the gain was computed from, Gain the gain
	// applied (after clamping), Family the topology family.
	Used   float64 `json:"used,omitempty"`
	Gain   float64 `json:"gain,omitempty"`
	Family string  `json:"family"`
	// Rounds is the push-sum rounds run; Converged whether the estimate
	// met the convergence test (false: the round cap ended the phase).
	Rounds    int  `json:"rounds"`
	Converged bool `json:"converged"`
	// Leader is the hex ID whose instance the peer is in.
	Leader string `json:"leader"`
	// Sent and Received count shares; Refused shares dropped on arrival
	// (malformed, forged sender, over budget); Stale shares of a
	// superseded instance.
	Sent     uint64 `json:"sent"`
	Received uint64 `json:"received"`
	Refused  uint64 `json:"refused"`
	Stale    uint64 `json:"stale"`
}

// needsSizeEstimate reports whether spec's initialisation needs the
// network size at run time.
func needsSizeEstimate(spec task.Spec) bool {
	return spec.Init.Mode == "he-gain" && spec.Init.Gain == 0
}

// sizer drives a pushsum.Node on the peer's loop.
type sizer struct {
	node    *pushsum.Node
	family  initgain.Family
	applied bool
	st      InitGainStatus
	refused uint64 // frames refused before the node saw them (decode, sender)
}

func newSizer(id ident.Peer) (*sizer, error) {
	n, err := pushsum.New(pushsum.DefaultConfig(id))
	if err != nil {
		return nil, err
	}
	return &sizer{node: n, family: initgain.Regular{}, st: InitGainStatus{State: "estimating", Family: "regular (FedLay overlay)"}}, nil
}

// gain returns the clamped approximate gain for estimate n.
func (s *sizer) gain(n float64) float64 {
	g, err := initgain.ApproxGain(n, s.family)
	if err != nil || math.IsNaN(g) {
		return MinInitGain
	}
	return min(max(g, MinInitGain), MaxInitGain)
}

// sizerTick runs one push-sum round over the neighbours with an open
// link and, when the estimation phase has just ended, applies the gain.
func (p *Peer) sizerTick() {
	s := p.sizer
	if s == nil {
		return
	}
	open := p.mgr.Peers()
	var nbrs []ident.Peer
	for _, id := range p.node.Neighbors() {
		if slices.Contains(open, id) && !p.cutBlocked(id) {
			nbrs = append(nbrs, id)
		}
	}
	s.node.SetNeighbors(nbrs)
	s.node.Tick()
	if s.node.Done() && !s.applied {
		s.applied = true
		r := s.node.Result()
		used := r.Estimate
		s.st.State = "done"
		if !r.OK {
			used = float64(len(nbrs) + 1) // the peers it knows: a lower bound of n
			s.st.State = "fallback"
		}
		s.st.Used, s.st.Gain, s.st.Converged = used, s.gain(used), r.Converged
		p.logf("network size estimate %.2f after %d rounds (converged %v, %s): init gain %.3f", used, r.Rounds, r.Converged, s.st.State, s.st.Gain)
		if p.learner != nil {
			if err := p.learner.scaleInit(s.st.Gain); err != nil {
				s.st.State = "failed" // not reached: the learner has not started a round, its core was built once
				p.logf("init gain: %v", err)
			}
		}
	}
}

// onPushSum steps the estimator with a share from peer from.
func (p *Peer) onPushSum(from ident.Peer, b []byte) {
	s := p.sizer
	if s == nil {
		p.errs++
		p.rateLogf("refused a push-sum share from %v: this task estimates no size", from)
		return
	}
	m, err := pushsum.Decode(b)
	if err == nil && m.From != from {
		err = fmt.Errorf("push-sum share from %v claims to be from %v", from, m.From)
	}
	if err == nil && p.cutBlocked(from) {
		return // a test's partition (cut_hook.go)
	}
	if err != nil {
		s.refused++
		p.rateLogf("refused a push-sum share from %v: %v", from, err)
		return
	}
	m.To = p.id
	if err := s.node.Step(m); err != nil {
		p.rateLogf("refused a push-sum share from %v: %v", from, err)
	}
}

// flushSizer sends the queued shares; one the transport refuses is
// given back, so its mass is not lost.
func (p *Peer) flushSizer(mgr *rtc.Manager) {
	s := p.sizer
	if s == nil || !s.node.HasReady() {
		return
	}
	for _, m := range s.node.Ready() {
		b, err := pushsum.Encode(m)
		if err == nil {
			err = mgr.SendApp(m.To, b)
		}
		if err != nil {
			s.node.Returned(m)
			p.rateLogf("push-sum share to %v: %v", m.To, err)
		}
	}
}

// status returns the estimator's part of Status.
func (s *sizer) status() *InitGainStatus {
	st := s.st
	if est, ok := s.node.Estimate(); ok {
		st.Estimate = est
	}
	st.Rounds = s.node.Rounds()
	if s.applied {
		st.Rounds = s.node.Result().Rounds
	}
	lead := s.node.Leader()
	st.Leader = hexID(lead)
	ns := s.node.Stats()
	st.Sent, st.Received, st.Stale, st.Refused = ns.Sent, ns.Received, ns.Stale, ns.Refused+s.refused
	return &st
}

// training reports whether the learner may run: a peer waiting for its
// init gain starts no round and takes part in no model exchange yet.
func (p *Peer) training() bool {
	return p.learner != nil && (p.sizer == nil || p.sizer.applied)
}
