package evalreq

import (
	"fmt"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Status is the state of one polled peer.
type Status uint8

const (
	// Pending: no reply yet.
	Pending Status = iota
	// Answered: the peer sent a result.
	Answered
	// Refused: the peer refused (Result.Reason says why).
	Refused
	// TimedOut: no reply before the poll's deadline.
	TimedOut
)

// String names the status.
func (s Status) String() string {
	return [...]string{"pending", "answered", "refused", "timed-out"}[min(int(s), 3)]
}

// Result is one polled peer's answer about the requester's model.
type Result struct {
	Peer     ident.Peer
	Status   Status
	Reason   Reason  // when Refused
	Loss     float64 // when Answered
	Accuracy float64 // when Answered
	Samples  uint32  // when Answered
}

// PollConfig describes one round of evaluation requests.
type PollConfig struct {
	// ID is the requester. Must be set.
	ID ident.Peer
	// Round is the requester's selection round, sent with the requests.
	Round uint64
	// FirstReqID is the request ID of the first target; the i-th target
	// gets FirstReqID+i. Must be non-zero, and the IDs must not wrap.
	FirstReqID uint64
	// Timeout is how many ticks the poll waits for replies.
	Timeout int
	// Model is the header of the model to evaluate.
	Model ModelHeader
}

// Poll is the requester side of one round: it issues one request per
// target, matches the replies and times out the rest. It is not safe for
// concurrent use.
type Poll struct {
	cfg     PollConfig
	results []Result
	index   map[ident.Peer]int
	left    int // targets still pending
	now     int
}

// NewPoll validates cfg and targets (distinct, not the requester) and
// returns the poll and its requests, one per target in target order,
// each carrying params (shared, not copied) as payload.
func NewPoll(cfg PollConfig, targets []ident.Peer, params []float32) (*Poll, []Message, error) {
	switch {
	case cfg.ID == ident.Peer{}:
		return nil, nil, fmt.Errorf("%w: ID not set", ErrConfig)
	case cfg.FirstReqID == 0 || cfg.FirstReqID+uint64(len(targets)) < cfg.FirstReqID:
		return nil, nil, fmt.Errorf("%w: FirstReqID %d for %d targets", ErrConfig, cfg.FirstReqID, len(targets))
	case cfg.Timeout < 1:
		return nil, nil, fmt.Errorf("%w: Timeout %d", ErrConfig, cfg.Timeout)
	case len(targets) == 0:
		return nil, nil, fmt.Errorf("%w: none", ErrTargets)
	case len(params) != int(cfg.Model.NumParams):
		return nil, nil, fmt.Errorf("%w: %d parameters, header says %d", ErrConfig, len(params), cfg.Model.NumParams)
	}
	if err := codec.CheckModel(cfg.Model.Arch, cfg.Model.NumParams); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p := &Poll{cfg: cfg, results: make([]Result, len(targets)), index: make(map[ident.Peer]int, len(targets)), left: len(targets)}
	msgs := make([]Message, len(targets))
	for i, t := range targets {
		if t == cfg.ID {
			return nil, nil, fmt.Errorf("%w: the requester itself", ErrTargets)
		}
		if _, dup := p.index[t]; dup {
			return nil, nil, fmt.Errorf("%w: %v twice", ErrTargets, t)
		}
		p.index[t] = i
		p.results[i].Peer = t
		msgs[i] = Message{Type: MsgEvalRequest, From: cfg.ID, To: t, ReqID: cfg.FirstReqID + uint64(i),
			Round: cfg.Round, Model: cfg.Model, Params: params}
	}
	return p, msgs, nil
}

// Step records a reply. A reply that is not for this poll (another peer's
// request ID, an unknown sender, a second reply, a reply after the
// deadline) is an error and changes nothing.
func (p *Poll) Step(m Message) error {
	if m.To != p.cfg.ID && m.To != (ident.Peer{}) {
		return fmt.Errorf("%w: %v", ErrNotForMe, m.To)
	}
	if m.Type != MsgEvalResult && m.Type != MsgEvalRefused {
		return fmt.Errorf("%w: %v to a requester", ErrUnexpected, m.Type)
	}
	if err := checkFields(&m); err != nil {
		return err
	}
	i, ok := p.index[m.From]
	if !ok || m.ReqID != p.cfg.FirstReqID+uint64(i) {
		return fmt.Errorf("%w: reply %d from %v", ErrUnexpected, m.ReqID, m.From)
	}
	r := &p.results[i]
	if r.Status != Pending {
		return fmt.Errorf("%w: %v already %v", ErrUnexpected, m.From, r.Status)
	}
	if m.Type == MsgEvalResult {
		r.Status, r.Loss, r.Accuracy, r.Samples = Answered, m.Loss, m.Accuracy, m.Samples
	} else {
		r.Status, r.Reason = Refused, m.Reason
	}
	p.left--
	return nil
}

// Tick advances time by one tick; at the deadline every pending target
// becomes TimedOut.
func (p *Poll) Tick() {
	p.now++
	if p.now < p.cfg.Timeout || p.left == 0 {
		return
	}
	for i := range p.results {
		if p.results[i].Status == Pending {
			p.results[i].Status = TimedOut
		}
	}
	p.left = 0
}

// Done reports whether every target has answered, refused or timed out.
func (p *Poll) Done() bool { return p.left == 0 }

// Results returns a copy of the results, in target order.
func (p *Poll) Results() []Result { return append([]Result(nil), p.results...) }
