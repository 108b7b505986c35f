package node

import (
	"math"

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
// initial model by the approximate gain of the FedLay overlay (the shell
// builds a method core again from the scaled model), a near-regular graph
// (degree <= 2L): initgain.Regular, √n, clamped to [MinInitGain,
// MaxInitGain]. The Node hands the gain out once (Ready.InitGain) and
// says the learner may not start a round before that (Node.Training).
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

// NeedsSizeEstimate reports whether spec's initialisation needs the
// network size at run time.
func NeedsSizeEstimate(spec task.Spec) bool {
	return spec.Init.Mode == "he-gain" && spec.Init.Gain == 0
}

// sizer is the Node's push-sum estimator and its gain decision.
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

// tick runs one push-sum round over nbrs (the neighbours with an open
// link) and, when the estimation phase has just ended, fixes the gain:
// it returns true then.
func (s *sizer) tick(nbrs []ident.Peer) bool {
	s.node.SetNeighbors(nbrs)
	s.node.Tick()
	if !s.node.Done() || s.applied {
		return false
	}
	s.applied = true
	r := s.node.Result()
	used := r.Estimate
	s.st.State = "done"
	if !r.OK {
		used = float64(len(nbrs) + 1) // the peers it knows: a lower bound of n
		s.st.State = "fallback"
	}
	s.st.Used, s.st.Gain, s.st.Converged = used, s.gain(used), r.Converged
	return true
}

// status returns the estimator's part of a status.
func (s *sizer) status() *InitGainStatus {
	st := s.st
	if est, ok := s.node.Estimate(); ok {
		st.Estimate = est
	}
	st.Rounds = s.node.Rounds()
	if s.applied {
		st.Rounds = s.node.Result().Rounds
	}
	st.Leader = HexID(s.node.Leader())
	ns := s.node.Stats()
	st.Sent, st.Received, st.Stale, st.Refused = ns.Sent, ns.Received, ns.Stale, ns.Refused+s.refused
	return &st
}
