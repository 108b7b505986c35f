package netpeer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/engine/modelcodec"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/types/ident"
)

// wireCodec carries a peer's models in the task's codec
// (engine/modelcodec): one sender and one receiver per neighbour, so a
// delta codec sends each neighbour the difference from the copy that
// neighbour acknowledged. A received delta is decoded to float32 before
// the learning protocol sees it: validation, clipping and reputation
// judge the model as they always have.
//
// On the wire a model's payload is
//
//	codec  u32 length, then the modelcodec payload of the parameters
//	rest   raw little-endian float32 (the Hessian, when one goes along)
//
// and two KindApp frames, told from the protocols' own by their first
// byte (the protocols' codecs start with version 1, push-sum with 'P'),
// keep the two ends on one reference:
//
//	ack    'A' | digest [32]  "I hold the copy with this digest"
//	reset  'R'                "I hold no copy of yours: send me a full model"
type wireCodec struct {
	cfg  modelcodec.Config
	send map[ident.Peer]*modelcodec.Sender
	recv map[ident.Peer]*modelcodec.Receiver
	// raw and wire count the model bytes sent: as float32, and as sent.
	raw, wire int64
	// refused counts payloads refused on arrival, resets those that asked
	// a neighbour for a full model.
	refused, resets int
}

const (
	codecAckTag   = 'A'
	codecResetTag = 'R'
	codecAckSize  = 1 + 32
)

// errCodecFrame: an ack or reset frame that is not one.
var errCodecFrame = errors.New("netpeer: bad codec frame")

// newWireCodec returns the codec for a spec's codec field, or nil for
// none ("" or "f32": float32 as it is, the original wire format).
func newWireCodec(name string) (*wireCodec, error) {
	if name == "" || name == "f32" {
		return nil, nil
	}
	cfg, err := modelcodec.Parse(name)
	if err != nil {
		return nil, err
	}
	return &wireCodec{cfg: cfg, send: map[ident.Peer]*modelcodec.Sender{}, recv: map[ident.Peer]*modelcodec.Receiver{}}, nil
}

// isCodecFrame reports whether a KindApp frame is an ack or a reset.
func isCodecFrame(b []byte) bool {
	return len(b) > 0 && (b[0] == codecAckTag || b[0] == codecResetTag)
}

// encode returns the payload carrying params (and rest as float32) to
// peer to.
func (c *wireCodec) encode(to ident.Peer, params, rest []float32) ([]byte, error) {
	s := c.send[to]
	if s == nil {
		var err error
		if s, err = modelcodec.NewSender(c.cfg); err != nil {
			return nil, err
		}
		c.send[to] = s
	}
	p, _, err := s.Encode(params)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 4+len(p)+4*len(rest))
	out = binary.BigEndian.AppendUint32(out, uint32(len(p)))
	out = append(out, p...)
	for _, x := range rest {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	c.raw += 4 * int64(len(params)+len(rest))
	c.wire += int64(len(out))
	return out, nil
}

// decode returns the n parameters and the rest entries a payload from
// peer from carries, and the frame to send back (an ack, or a reset when
// the payload is a delta against a copy this peer does not hold; nil
// for a codec that needs neither).
func (c *wireCodec) decode(from ident.Peer, payload []byte, n, rest int) (params, restVals []float32, reply []byte, err error) {
	if len(payload) < 4 {
		c.refused++
		return nil, nil, nil, fmt.Errorf("%w: %d bytes", modelcodec.ErrLength, len(payload))
	}
	k := int(binary.BigEndian.Uint32(payload))
	if k > len(payload)-4 || len(payload)-4-k != 4*rest {
		c.refused++
		return nil, nil, nil, fmt.Errorf("%w: codec part of %d bytes, %d bytes left for %d float32", modelcodec.ErrLength, k, len(payload)-4-k, rest)
	}
	r := c.recv[from]
	if r == nil {
		r = &modelcodec.Receiver{}
		c.recv[from] = r
	}
	params, digest, err := r.Decode(payload[4:4+k], n)
	if errors.Is(err, modelcodec.ErrUnknownReference) {
		c.refused++
		c.resets++
		return nil, nil, []byte{codecResetTag}, err
	}
	if err != nil {
		c.refused++
		return nil, nil, nil, err
	}
	restVals = make([]float32, rest)
	for i := range restVals {
		v := math.Float32frombits(binary.LittleEndian.Uint32(payload[4+k+4*i:]))
		if !(math.Abs(float64(v)) <= modelcodec.MaxAbs) {
			c.refused++
			return nil, nil, nil, fmt.Errorf("%w: entry %d is %v", modelcodec.ErrValue, i, v)
		}
		restVals[i] = v
	}
	if digest != (nn.Digest{}) {
		reply = append([]byte{codecAckTag}, digest[:]...)
	}
	return params, restVals, reply, nil
}

// restOf is how many raw float32 follow the codec part of a payload
// (a core's Send.Rest: FedLay's Hessian); 0 for a payload too short or
// whose tail is not whole float32, which decode then refuses.
func restOf(payload []byte) int {
	if len(payload) < 4 {
		return 0
	}
	k := int64(binary.BigEndian.Uint32(payload))
	tail := int64(len(payload)) - 4 - k
	if tail < 0 || tail%4 != 0 {
		return 0
	}
	return int(tail / 4)
}

// onFrame applies an ack or a reset from peer from.
func (c *wireCodec) onFrame(from ident.Peer, b []byte) error {
	s := c.send[from]
	switch {
	case len(b) == codecAckSize && b[0] == codecAckTag:
		if s == nil || !s.Ack(nn.Digest(b[1:])) {
			return fmt.Errorf("%w: an ack of a copy never sent", errCodecFrame)
		}
	case len(b) == 1 && b[0] == codecResetTag:
		if s != nil {
			s.Reset()
		}
	default:
		return fmt.Errorf("%w: %d bytes", errCodecFrame, len(b))
	}
	return nil
}

// forget drops what is kept for a neighbour whose connection closed: its
// next model is a full one, and the memory goes.
func (c *wireCodec) forget(id ident.Peer) {
	delete(c.send, id)
	delete(c.recv, id)
}
