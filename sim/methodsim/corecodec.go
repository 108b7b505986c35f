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
// whose models travel compressed (CoreRun.Codec): the sender's copy of
// what the receiver holds and the receiver's references, as a real
// link keeps them.
type linkCodecs struct {
	cfg  modelcodec.Config
	send map[[2]int]*modelcodec.Sender
	recv map[[2]int]*modelcodec.Receiver
	// Refused counts payloads a receiver refused (a delta against a
	// reference it no longer holds); each sends the link back to a full
	// model.
	refused int
}

func newLinkCodecs(cfg modelcodec.Config) (*linkCodecs, error) {
	cfg, err := cfg.Normalize()
	if err != nil {
		return nil, err
	}
	return &linkCodecs{cfg: cfg, send: map[[2]int]*modelcodec.Sender{}, recv: map[[2]int]*modelcodec.Receiver{}}, nil
}

func (l *linkCodecs) sender(from, to int) *modelcodec.Sender {
	k := [2]int{from, to}
	s := l.send[k]
	if s == nil {
		s, _ = modelcodec.NewSender(l.cfg) // cfg is normalised
		l.send[k] = s
	}
	return s
}

func (l *linkCodecs) receiver(from, to int) *modelcodec.Receiver {
	k := [2]int{from, to}
	r := l.recv[k]
	if r == nil {
		r = &modelcodec.Receiver{}
		l.recv[k] = r
	}
	return r
}

// sendModel carries params from one peer to another as the codec
// encodes them: header bytes plus the payload on the wire, the
// receiver's decoded copy handed to deliver, and for a delta codec an
// acknowledgement back to the sender (or, on a refusal, a reset of the
// link to full models).
func (c *coreNet) sendModel(from, to int, header []byte, params []float32, deliver func([]float32)) {
	s := c.codecs.sender(from, to)
	payload, digest, err := s.Encode(params)
	if err != nil {
		c.fail(err)
		return
	}
	c.sim.send(from, to, int64(len(header)+len(payload)), true, func() {
		got, ack, err := c.codecs.receiver(from, to).Decode(payload, len(params))
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
		deliver(got)
	})
}
