package plexus

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/internal/wire/wiretest"
	"github.com/peerlearn/peerlearn/types/ident"
)

func sortedMembers(n int) []Member {
	ms := members(n)
	slices.SortFunc(ms, func(a, b Member) int { return bytes.Compare(a.ID[:], b.ID[:]) })
	return ms
}

func TestDigestRoundTrip(t *testing.T) {
	d := Digest{From: pid(1), Newest: 77, Members: sortedMembers(5)}
	b := wiretest.RoundTrip(t, d, EncodeDigest, DecodeDigest)
	if len(b) != digestHead+5*digestEntry || !IsDigest(b) {
		t.Fatalf("%d bytes, IsDigest %v", len(b), IsDigest(b))
	}
	if _, err := Decode(b); !errors.Is(err, ErrUnknownType) {
		t.Errorf("Decode of a digest: %v", err)
	}
	train, _ := Encode(sampleMessages()[0])
	if IsDigest(train) {
		t.Error("a MsgTrain is taken for a digest")
	}
	if _, err := DecodeDigest(train); !errors.Is(err, ErrUnknownType) {
		t.Errorf("DecodeDigest of a MsgTrain: %v", err)
	}
	wiretest.Truncated(t, b, DecodeDigest, ErrTruncated)
}

func TestDigestRejects(t *testing.T) {
	ms := sortedMembers(3)
	good, _ := EncodeDigest(Digest{From: pid(1), Members: ms})
	mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	for name, c := range map[string]struct {
		in   []byte
		want error
	}{
		"version":     {mut(func(b []byte) []byte { b[0] = 2; return b }), ErrCodecVersion},
		"count 0":     {mut(func(b []byte) []byte { b[42], b[43] = 0, 0; return b }), ErrField},
		"count 257":   {mut(func(b []byte) []byte { b[42], b[43] = 1, 1; return b }), ErrField},
		"round":       {mut(func(b []byte) []byte { b[34] = 1; return b }), ErrField},
		"trailing":    {append(bytes.Clone(good), 0), ErrTrailing},
		"oversized":   {make([]byte, digestHead+digestEntry*MaxDigestMembers+1), ErrOversized},
		"bandwidth 0": {mut(func(b []byte) []byte { clear(b[digestHead+32 : digestHead+40]); return b }), ErrField},
		"zero ID":     {mut(func(b []byte) []byte { clear(b[digestHead : digestHead+32]); return b }), ErrField},
		"unsorted": {mut(func(b []byte) []byte {
			e := digestHead
			first := bytes.Clone(b[e : e+digestEntry])
			copy(b[e:], b[e+digestEntry:e+2*digestEntry])
			copy(b[e+digestEntry:], first)
			return b
		}), ErrField},
	} {
		if _, err := DecodeDigest(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if _, err := EncodeDigest(Digest{From: ident.Peer{}, Members: ms}); !errors.Is(err, ErrField) {
		t.Errorf("zero sender: %v", err)
	}
	if _, err := EncodeDigest(Digest{From: pid(1), Members: append(slices.Clone(ms), ms[0])}); !errors.Is(err, ErrField) {
		t.Errorf("repeated member: %v", err)
	}
}

// A peer collects trained models for at most MaxOpenRounds rounds at
// once: models for further new rounds are refused, not held.
func TestOpenRoundsBounded(t *testing.T) {
	ms := members(3)
	p := newPeer(t, ms, 0, nil)
	model := Message{Type: MsgTrained, From: ms[1].ID, To: ms[0].ID, Bandwidth: 1,
		Model: ModelHeader{Arch: "m", NumParams: 2, DataSize: 1}, Params: []float32{1, 2}}
	for k := uint64(1); k <= MaxOpenRounds+1; k++ {
		m := model
		m.Round = k + 1000
		err := p.Step(m)
		if k <= MaxOpenRounds && err != nil {
			t.Fatalf("round %d: %v", m.Round, err)
		}
		if k > MaxOpenRounds && !errors.Is(err, ErrBudget) {
			t.Fatalf("round %d past the bound: %v", m.Round, err)
		}
	}
}

// FuzzDecodeDigest: DecodeDigest never panics and is canonical.
func FuzzDecodeDigest(f *testing.F) {
	good, _ := EncodeDigest(Digest{From: pid(1), Members: sortedMembers(3)})
	f.Add(good)
	f.Fuzz(func(t *testing.T, b []byte) { wiretest.Canonical(t, b, DecodeDigest, EncodeDigest) })
}
