package evalreq

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/types/ident"
)

// ResponderConfig configures the responder side. Times are in ticks.
type ResponderConfig struct {
	// ID is this peer. Must be set.
	ID ident.Peer
	// Arch and NumParams describe the local model: requests for another
	// architecture or length are refused with ReasonBadModel. Must be set.
	Arch      string
	NumParams int
	// Refuse makes the peer refuse every request (ReasonPolicy): a peer
	// that does not lend its data for others' evaluations.
	Refuse bool
	// Burst is the token bucket's capacity: how many evaluations may be
	// admitted back to back.
	Burst int
	// RefillTicks is the number of ticks per new token: the sustained
	// rate is one evaluation per RefillTicks ticks.
	RefillTicks int
}

// DefaultResponderConfig returns the rate defaults; the caller sets ID,
// Arch and NumParams. PENS's step 1 sends n_samplings * m_sample = 200
// requests per peer and round (Table 3.3, 200 clients), so on average a
// peer receives 200 requests per round: the defaults admit a burst of 256
// and one more per tick, enough when a round lasts tens of ticks.
func DefaultResponderConfig() ResponderConfig {
	return ResponderConfig{
		Burst:       256, // one PENS step-1 round's requests, with margin
		RefillTicks: 1,   // 10 evaluations/s sustained at 100 ms ticks
	}
}

// Validate checks every field.
func (c ResponderConfig) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
	}
	switch {
	case c.ID == ident.Peer{}:
		return bad("ID not set")
	case len(c.Arch) == 0 || len(c.Arch) > MaxArchLen:
		return bad("Arch %q: want 1 to %d bytes", c.Arch, MaxArchLen)
	case c.NumParams < 1 || c.NumParams > MaxParams:
		return bad("NumParams %d: want 1 to %d", c.NumParams, MaxParams)
	case c.Burst < 1:
		return bad("Burst %d: want >= 1", c.Burst)
	case c.RefillTicks < 1:
		return bad("RefillTicks %d: want >= 1", c.RefillTicks)
	}
	return nil
}

// ResponderStats counts what a responder did; all counters only grow.
type ResponderStats struct {
	Requests    uint64 // well-formed requests addressed to us
	Admitted    uint64 // requests admitted for evaluation
	Answered    uint64 // results built by Answer
	RateLimited uint64 // refused: no token
	Policy      uint64 // refused: Refuse is set
	BadModel    uint64 // refused: architecture, length or non-finite
	Dropped     uint64 // not a request, not for us, or malformed
}

// Responder decides, request by request, whether this peer evaluates a
// requester's model. It is not safe for concurrent use.
type Responder struct {
	cfg    ResponderConfig
	bucket bucket
	stats  ResponderStats
}

// NewResponder validates cfg and returns a responder with a full bucket.
func NewResponder(cfg ResponderConfig) (*Responder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Responder{cfg: cfg, bucket: newBucket(cfg.Burst, cfg.RefillTicks)}, nil
}

// Tick advances time by one tick, refilling the bucket.
func (r *Responder) Tick() { r.bucket.tick() }

// Stats returns the counters.
func (r *Responder) Stats() ResponderStats { return r.stats }

// Admit decides on a request (with its Params payload). evaluate true: the
// caller evaluates req.Params on its training data and sends
// Answer(req, ...). evaluate false with a nil error: send the refusal
// reply. An error means the message is dropped without a reply.
// Policy refusals come first (they spend no token), then model checks,
// then the rate limit.
func (r *Responder) Admit(req Message) (reply Message, evaluate bool, err error) {
	if err := r.check(req); err != nil {
		r.stats.Dropped++
		return Message{}, false, err
	}
	r.stats.Requests++
	refuse := func(reason Reason, n *uint64) (Message, bool, error) {
		*n++
		return Message{Type: MsgEvalRefused, From: r.cfg.ID, To: req.From, ReqID: req.ReqID, Round: req.Round, Reason: reason}, false, nil
	}
	switch {
	case r.cfg.Refuse:
		return refuse(ReasonPolicy, &r.stats.Policy)
	case req.Model.Arch != r.cfg.Arch || int(req.Model.NumParams) != r.cfg.NumParams ||
		len(req.Params) != r.cfg.NumParams || f32.FirstNonFinite(req.Params) >= 0:
		return refuse(ReasonBadModel, &r.stats.BadModel)
	case !r.bucket.take():
		return refuse(ReasonRateLimited, &r.stats.RateLimited)
	}
	r.stats.Admitted++
	return Message{}, true, nil
}

// check drops what is not a well-formed request for this peer.
func (r *Responder) check(req Message) error {
	if req.Type != MsgEvalRequest {
		return fmt.Errorf("%w: %v to a responder", ErrUnexpected, req.Type)
	}
	if req.To != r.cfg.ID && req.To != (ident.Peer{}) {
		return fmt.Errorf("%w: %v", ErrNotForMe, req.To)
	}
	if req.From == r.cfg.ID {
		return fmt.Errorf("%w: request from self", ErrUnexpected)
	}
	return checkFields(&req)
}

// Answer builds the result reply to an admitted request: the loss and
// accuracy of req's model measured on samples local training examples.
func (r *Responder) Answer(req Message, loss, accuracy float64, samples int) (Message, error) {
	if samples < 1 || samples > math.MaxUint32 {
		return Message{}, fmt.Errorf("%w: %d samples", ErrBadResult, samples)
	}
	if err := checkResult(loss, accuracy, uint32(samples)); err != nil {
		return Message{}, fmt.Errorf("%w: %w", ErrBadResult, err)
	}
	r.stats.Answered++
	return Message{
		Type: MsgEvalResult, From: r.cfg.ID, To: req.From, ReqID: req.ReqID, Round: req.Round,
		Loss: loss, Accuracy: accuracy, Samples: uint32(samples),
	}, nil
}
