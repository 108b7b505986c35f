package modelcodec

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// Pending is how many sent, unacknowledged reconstructions a Sender
// keeps, and how many reconstructions a Receiver keeps as references:
// enough for one message in flight while the next is encoded, bounded
// so that a link costs at most this many models of memory at each end.
const Pending = 2

type model struct {
	digest nn.Digest
	params []float32
}

// Sender is one link's sending side: it keeps the receiver's
// acknowledged copy x̂ and encodes deltas against it. Not safe for
// concurrent use.
type Sender struct {
	cfg     Config
	acked   model // empty until the first Ack
	pending []model
	// Fulls and Deltas count the messages of each form.
	Fulls, Deltas int
}

// NewSender returns a link's sender for cfg.
func NewSender(cfg Config) (*Sender, error) {
	cfg, err := cfg.Normalize()
	if err != nil {
		return nil, err
	}
	return &Sender{cfg: cfg}, nil
}

// Config returns the normalised configuration.
func (s *Sender) Config() Config { return s.cfg }

// fullConfig is the encoding of a full model: for a delta kind, int8
// blocks against the zero model (the deltas that follow correct its
// rounding: error feedback again; top-k of a whole model would send a
// tenth of it); otherwise the kind itself.
func (s *Sender) fullConfig() Config {
	if s.cfg.Kind.Delta() {
		return Config{Kind: DeltaInt8, Block: s.cfg.Block}
	}
	return s.cfg
}

// Encode returns the payload for x and the digest of the copy the
// receiver will hold after decoding it (what it acknowledges). A delta
// is sent when the receiver has acknowledged a model of x's size, a full
// model otherwise.
func (s *Sender) Encode(x []float32) ([]byte, nn.Digest, error) {
	cfg, ref, refDigest := s.fullConfig(), []float32(nil), nn.Digest{}
	if s.cfg.Kind.Delta() && len(s.acked.params) == len(x) {
		cfg, ref, refDigest = s.cfg, s.acked.params, s.acked.digest
	}
	p, err := Encode(nil, cfg, x, ref, refDigest)
	if err != nil {
		return nil, nn.Digest{}, err
	}
	if !s.cfg.Kind.Delta() {
		s.Fulls++
		return p, nn.Digest{}, nil
	}
	recon, err := Decode(p, len(x), ref)
	if err != nil {
		return nil, nn.Digest{}, fmt.Errorf("modelcodec: own payload: %w", err)
	}
	d := nn.Fingerprint(recon)
	if ref != nil {
		s.Deltas++
	} else {
		s.Fulls++
	}
	s.pending = append(s.pending, model{d, recon})
	if len(s.pending) > Pending {
		s.pending = s.pending[1:]
	}
	return p, d, nil
}

// Ack records that the receiver holds the reconstruction with digest d;
// later deltas are against it. It reports whether d was one this sender
// sent and still keeps.
func (s *Sender) Ack(d nn.Digest) bool {
	for i, m := range s.pending {
		if m.digest == d {
			s.acked = m
			s.pending = s.pending[i+1:]
			return true
		}
	}
	return false
}

// Reset forgets the receiver's copy: the next payload is a full model.
// Call it when the receiver refused a delta (ErrUnknownReference) or the
// link was re-established.
func (s *Sender) Reset() { s.acked, s.pending = model{}, nil }

// Receiver is one link's receiving side: it keeps the last Pending
// reconstructions as references for the sender's deltas. Not safe for
// concurrent use.
type Receiver struct {
	refs []model
}

// Decode reconstructs the n parameters p encodes and returns them with
// the digest to acknowledge (zero for a kind that needs no
// acknowledgement). A delta against a reference this receiver does not
// keep is refused with ErrUnknownReference: the sender must Reset.
func (r *Receiver) Decode(p []byte, n int) ([]float32, nn.Digest, error) {
	h, err := PeekHeader(p)
	if err != nil {
		return nil, nn.Digest{}, err
	}
	var ref []float32
	if h.Kind.Delta() && h.Ref != (nn.Digest{}) {
		for _, m := range r.refs {
			if m.digest == h.Ref && len(m.params) == n {
				ref = m.params
			}
		}
		if ref == nil {
			return nil, nn.Digest{}, fmt.Errorf("%w: %v", ErrUnknownReference, h.Ref)
		}
	}
	out, err := Decode(p, n, ref)
	if err != nil {
		return nil, nn.Digest{}, err
	}
	// Only a delta link's models are references (and acknowledged).
	if !h.Kind.Delta() {
		return out, nn.Digest{}, nil
	}
	d := nn.Fingerprint(out)
	r.refs = append(r.refs, model{d, slices.Clone(out)}) // the caller may change out
	if len(r.refs) > Pending {
		r.refs = r.refs[1:]
	}
	return out, d, nil
}

// Reset forgets every reference (a new link).
func (r *Receiver) Reset() { r.refs = nil }
