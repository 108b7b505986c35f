package methodsim

import (
	"errors"

	"github.com/peerlearn/peerlearn/engine/modelcodec"
	"github.com/peerlearn/peerlearn/engine/nn"
)

// ackBytes is an acknowledgement's size on the wire: a model protocol's
// opening (version, type, sender) and the digest of the copy it holds.
const ackBytes = 1 + 1 + 32 + 32

// linkCodecs are the codec ends of every directed link of a CoreRun
// whose models travel compressed (CoreRun.Codec), as real links keep
// them, and the payloads receivers refused (a delta against a reference
// no longer held; each sends the link back to a full model).
type linkCodecs struct {
	*modelcodec.Links[int]
	refused int
}

func newLinkCodecs(cfg modelcodec.Config) (*linkCodecs, error) {
	l, err := modelcodec.NewLinks[int](cfg)
	if err != nil {
		return nil, err
	}
	return &linkCodecs{Links: l}, nil
}

// sendModel carries params from one peer to another as the codec
// encodes them: header bytes plus the payload on the wire, the
// receiver's decoded copy handed to deliver, and for a delta codec an
// acknowledgement back to the sender (or, on a refusal, a reset of the
// link to full models). rest (a core's Send.Rest) follows as raw
// float32, as on a real peer's wire.
func (c *coreNet) sendModel(from, to int, header []byte, params, rest []float32, deliver func([]float32)) {
	s := c.codecs.Sender(from, to)
	payload, digest, err := s.Encode(params)
	if err != nil {
		c.fail(err)
		return
	}
	c.sim.send(from, to, int64(len(header)+len(payload)+4*len(rest)), true, func() {
		got, ack, err := c.codecs.Receiver(from, to).Decode(payload, len(params))
		if errors.Is(err, modelcodec.ErrUnknownReference) {
			c.codecs.refused++
			c.sim.send(to, from, ackBytes, false, s.Reset)
			return
		}
		if err != nil {
			c.fail(err)
			return
		}
		if ack != (nn.Digest{}) {
			if ack != digest {
				c.fail(errors.New("methodsim: a codec's two ends disagree on the reference"))
				return
			}
			c.sim.send(to, from, ackBytes, false, func() { s.Ack(ack) })
		}
		deliver(withRest(got, rest))
	})
}

// withRest is the values a receiving core gets: the parameters, then a
// Send's Rest (a copy when there is one: the sender's are shared).
func withRest(params, rest []float32) []float32 {
	if rest == nil {
		return params
	}
	return append(append(make([]float32, 0, len(params)+len(rest)), params...), rest...)
}
