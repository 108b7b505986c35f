package netpeer

import (
	"errors"
	"fmt"

	"github.com/peerlearn/peerlearn/internal/wire"
)

// The observer exchange (observers.go, observer.go) has two frames, both
// tagged observeTag so that a peer tells them from MEP, method, push-sum
// and codec frames:
//
//	pull  (rtc KindApp, observer -> peer): tag u8 | version u8 | 1 u8 | have u64
//	model (the meta of an rtc transfer, peer -> observer):
//	      tag u8 | version u8 | 2 u8 | round u64 | params u32 | archlen u8 | arch
//
// have is the round of this peer's model the observer holds (0: none);
// a model's payload is its parameters, float32 little-endian as they
// are (no codec: an observer holds no reference for a delta).
const (
	observeTag     = 'O'
	observeVersion = 1
	observePull    = 1
	observeModel   = 2
	pullFrameSize  = 3 + 8
	maxObserveArch = 255
)

var errObserveFrame = errors.New("netpeer: malformed observer frame")

// isObserveFrame reports whether b is tagged as an observer frame.
func isObserveFrame(b []byte) bool { return len(b) > 0 && b[0] == observeTag }

func encodePull(have int) []byte {
	w := wire.Writer{B: make([]byte, 0, pullFrameSize)}
	w.U8(observeTag)
	w.U8(observeVersion)
	w.U8(observePull)
	w.U64(uint64(max(have, 0)))
	return w.B
}

// decodePull returns a pull frame's have.
func decodePull(b []byte) (int, error) {
	r := wire.NewReader(b)
	tag, v, typ, have := r.U8(), r.U8(), r.U8(), r.U64()
	if err := r.Done(); err != nil {
		return 0, fmt.Errorf("%w: %w", errObserveFrame, err)
	}
	if tag != observeTag || v != observeVersion || typ != observePull || have > 1<<40 {
		return 0, fmt.Errorf("%w: tag %d version %d type %d have %d", errObserveFrame, tag, v, typ, have)
	}
	return int(have), nil
}

// observedHeader is a model transfer's meta.
type observedHeader struct {
	Round     int
	NumParams int
	Arch      string
}

func encodeObserved(h observedHeader) ([]byte, error) {
	if len(h.Arch) > maxObserveArch || h.Round < 0 || h.NumParams < 0 || h.NumParams > 1<<31 {
		return nil, fmt.Errorf("%w: %d params, arch of %d bytes", errObserveFrame, h.NumParams, len(h.Arch))
	}
	w := wire.Writer{B: make([]byte, 0, 3+8+4+1+len(h.Arch))}
	w.U8(observeTag)
	w.U8(observeVersion)
	w.U8(observeModel)
	w.U64(uint64(h.Round))
	w.U32(uint32(h.NumParams))
	w.U8(uint8(len(h.Arch)))
	w.String(h.Arch)
	return w.B, nil
}

func decodeObserved(b []byte) (observedHeader, error) {
	r := wire.NewReader(b)
	tag, v, typ, round, n := r.U8(), r.U8(), r.U8(), r.U64(), r.U32()
	arch := r.String(int(r.U8()))
	if err := r.Done(); err != nil {
		return observedHeader{}, fmt.Errorf("%w: %w", errObserveFrame, err)
	}
	if tag != observeTag || v != observeVersion || typ != observeModel || round > 1<<40 || n > 1<<31 {
		return observedHeader{}, fmt.Errorf("%w: tag %d version %d type %d round %d", errObserveFrame, tag, v, typ, round)
	}
	return observedHeader{Round: int(round), NumParams: int(n), Arch: arch}, nil
}
