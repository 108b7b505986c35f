package netpeer

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/engine/modelcodec"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Two peers' wire codecs: models go out compressed, acks come back as
// KindApp frames, the next models are deltas; a peer that lost its copy
// answers a delta with a reset and gets a full model; hostile payloads
// are refused and counted.
func TestWireCodecLink(t *testing.T) {
	a, err := newWireCodec("delta-int4")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := newWireCodec("delta-int4")
	ida, idb := ident.Peer{1}, ident.Peer{2}
	rng := rand.New(rand.NewPCG(1, 2))
	model := func() []float32 {
		x := make([]float32, 4000)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 0.1)
		}
		return x
	}
	deliver := func(x []float32) ([]float32, error) {
		p, err := a.encode(idb, x, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, _, reply, err := b.decode(ida, p, len(x), 0)
		if reply != nil {
			if ferr := a.onFrame(idb, reply); ferr != nil {
				t.Fatalf("frame %q: %v", reply[:1], ferr)
			}
		}
		return got, err
	}
	x := model()
	for range 5 {
		if _, err := deliver(x); err != nil {
			t.Fatal(err)
		}
	}
	if s := a.send[idb]; s.Fulls != 1 || s.Deltas != 4 {
		t.Fatalf("%d full and %d delta models, want 1 and 4", s.Fulls, s.Deltas)
	}
	if a.raw <= 6*a.wire {
		t.Errorf("raw %d bytes, wire %d: want more than 6x less", a.raw, a.wire)
	}
	// b restarts: the next delta is refused with a reset, then a full
	// model goes through.
	b.forget(ida)
	if _, err := deliver(model()); !errors.Is(err, modelcodec.ErrUnknownReference) || b.resets != 1 {
		t.Fatalf("delta to a peer without a copy: %v (resets %d)", err, b.resets)
	}
	if _, err := deliver(model()); err != nil {
		t.Fatalf("the full model after the reset: %v", err)
	}
	// Hostile: a length that lies about the Hessian, a short payload, an
	// ack of a copy never sent, a frame of the wrong size.
	p, _ := a.encode(idb, model(), nil)
	if _, _, _, err := b.decode(ida, p, 4000, 10); !errors.Is(err, modelcodec.ErrLength) {
		t.Errorf("a payload without the Hessian its header promised: %v", err)
	}
	if _, _, _, err := b.decode(ida, p[:3], 4000, 0); !errors.Is(err, modelcodec.ErrLength) {
		t.Errorf("3 bytes: %v", err)
	}
	if err := a.onFrame(idb, append([]byte{codecAckTag}, make([]byte, 32)...)); !errors.Is(err, errCodecFrame) {
		t.Errorf("an ack of nothing sent: %v", err)
	}
	if err := a.onFrame(idb, []byte{codecAckTag, 1}); !errors.Is(err, errCodecFrame) {
		t.Errorf("a short ack: %v", err)
	}
	if b.refused < 3 {
		t.Errorf("refused %d payloads, want the 3 above counted", b.refused)
	}
}

// A core's Send.Rest (FedLay's Hessian) follows the codec part as raw
// float32: the receiver finds its length in the payload (restOf) and
// gets it back exactly, the parameters through the codec.
func TestWireCodecCarriesRest(t *testing.T) {
	a, _ := newWireCodec("delta-int8")
	b, _ := newWireCodec("delta-int8")
	ida, idb := ident.Peer{1}, ident.Peer{2}
	params, rest := make([]float32, 500), make([]float32, 500)
	for i := range params {
		params[i], rest[i] = float32(i%7)*0.01, 1e-3*float32(i)
	}
	p, err := a.encode(idb, params, rest)
	if err != nil {
		t.Fatal(err)
	}
	if n := restOf(p); n != len(rest) {
		t.Fatalf("restOf: %d, want %d", n, len(rest))
	}
	got, gotRest, _, err := b.decode(ida, p, len(params), restOf(p))
	if err != nil || len(got) != len(params) || !slices.Equal(gotRest, rest) {
		t.Fatalf("decoded %d parameters, rest equal %v: %v", len(got), slices.Equal(gotRest, rest), err)
	}
	// Malformed: no rest where the tail is short of a float32 or the
	// codec length runs past the payload (decode refuses those).
	for _, bad := range [][]byte{nil, {0, 0}, append(slices.Clone(p), 1), {0xff, 0xff, 0xff, 0xff, 1}} {
		if n := restOf(bad); n != 0 {
			t.Errorf("restOf(%d bytes) = %d, want 0", len(bad), n)
		}
	}
}

// The codec frames are told apart from every protocol's first byte.
func TestCodecFramesDistinct(t *testing.T) {
	if isCodecFrame([]byte{1}) || isCodecFrame([]byte{'P'}) || isCodecFrame(nil) {
		t.Fatal("a protocol frame taken for a codec frame")
	}
}

// A spec's codec is checked by the engine: a name with a bad parameter
// is refused, none or f32 runs no codec, the others do.
func TestSpecCodecChecked(t *testing.T) {
	s := task.DefaultSpec()
	s.Name = "codec"
	for _, c := range []string{"int8:3", "delta-topk:2"} {
		s.Codec = c
		if err := s.ValidateFor(node.TaskEngine{}); !errors.Is(err, task.ErrInvalid) {
			t.Errorf("codec %q: %v", c, err)
		}
	}
	for c, on := range map[string]bool{"": false, "f32": false, "f16": true, "delta-int4": true} {
		s.Codec = c
		if err := s.ValidateFor(node.TaskEngine{}); err != nil {
			t.Errorf("codec %q: %v", c, err)
		}
		w, err := newWireCodec(c)
		if err != nil || (w != nil) != on {
			t.Errorf("codec %q: wire codec %v, %v", c, w != nil, err)
		}
	}
}
