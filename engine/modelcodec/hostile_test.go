package modelcodec

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// Hostile encodings: each is refused with its sentinel, never decoded
// into a model and never a panic.
func TestHostileEncodingsRefused(t *testing.T) {
	n := 64
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i) / 100
	}
	ref := make([]float32, n)
	rd := nn.Fingerprint(ref)
	enc := func(c Config) []byte {
		p, err := Encode(nil, c, x, ref, rd)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	int8p := enc(Config{Kind: Int8, Block: 16})
	topk := enc(Config{Kind: DeltaTopK, TopK: 0.25})
	int4 := func(m int) []byte { // m parameters, odd: a padding nibble
		p, err := Encode(nil, Config{Kind: DeltaInt4, Block: 16}, x[:m], ref[:m], nn.Fingerprint(ref[:m]))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	hdr := headerSize + 2 // int8: the first scale's offset
	mod := func(p []byte, f func(q []byte) []byte) []byte { return f(append([]byte(nil), p...)) }
	putScale := func(v float32) func([]byte) []byte {
		return func(q []byte) []byte { binary.LittleEndian.PutUint32(q[hdr:], math.Float32bits(v)); return q }
	}
	for _, tc := range []struct {
		name string
		p    []byte
		n    int
		ref  []float32
		want error
	}{
		{"empty", nil, n, nil, ErrLength},
		{"version", mod(int8p, func(q []byte) []byte { q[0] = 9; return q }), n, nil, ErrVersion},
		{"kind", mod(int8p, func(q []byte) []byte { q[1] = 42; return q }), n, nil, ErrKind},
		{"count lie", int8p, n + 1, nil, ErrLength},
		{"zero count", mod(int8p, func(q []byte) []byte { binary.BigEndian.PutUint32(q[2:], 0); return q }), 0, nil, ErrLength},
		{"huge count", mod(int8p, func(q []byte) []byte { binary.BigEndian.PutUint32(q[2:], 1<<31); return q }), 1 << 31, nil, ErrLength},
		{"scale 1e30", mod(int8p, putScale(1e30)), n, nil, ErrValue},
		{"scale NaN", mod(int8p, putScale(float32(math.NaN()))), n, nil, ErrValue},
		{"scale negative", mod(int8p, putScale(-1)), n, nil, ErrValue},
		{"block 0", mod(int8p, func(q []byte) []byte { binary.BigEndian.PutUint16(q[headerSize:], 0); return q }), n, nil, ErrLength},
		{"int8 -128", mod(int8p, func(q []byte) []byte { q[len(q)-1] = 0x80; return q }), n, nil, ErrValue},
		{"truncated", int8p[:len(int8p)-1], n, nil, ErrLength},
		{"trailing", append(append([]byte(nil), int8p...), 0), n, nil, ErrTrailing},
		{"f32 infinity", func() []byte {
			p := enc(Config{Kind: F32})
			binary.LittleEndian.PutUint32(p[headerSize:], math.Float32bits(float32(math.Inf(1))))
			return p
		}(), n, nil, ErrValue},
		{"f32 1e30", func() []byte {
			p := enc(Config{Kind: F32})
			binary.LittleEndian.PutUint32(p[headerSize:], math.Float32bits(1e30))
			return p
		}(), n, nil, ErrValue},
		{"f16 NaN", func() []byte {
			p := enc(Config{Kind: F16})
			binary.LittleEndian.PutUint16(p[headerSize:], 0x7e00)
			return p
		}(), n, nil, ErrValue},
		{"delta, unknown reference", topk, n, nil, ErrUnknownReference},
		{"int4 -8", mod(int4(n), func(q []byte) []byte { q[len(q)-1] = 0x08; return q }), n, ref, ErrValue},
		{"int4 padding", mod(int4(n-1), func(q []byte) []byte { q[len(q)-1] |= 0x10; return q }), n - 1, ref[:n-1], ErrValue},
		{"int4 scale over 7 levels", func() []byte {
			p := int4(n)
			binary.LittleEndian.PutUint32(p[headerSize+32+2:], math.Float32bits(MaxAbs/7*1.01))
			return p
		}(), n, ref, ErrValue},
		{"top-k count 0", mod(topk, func(q []byte) []byte { binary.BigEndian.PutUint32(q[headerSize+32:], 0); return q }), n, ref, ErrLength},
		{"top-k count > n", mod(topk, func(q []byte) []byte { binary.BigEndian.PutUint32(q[headerSize+32:], uint32(n+1)); return q }), n, ref, ErrLength},
		{"top-k index out of range", mod(topk, func(q []byte) []byte { q[headerSize+32+4] = 63 + 1; return q }), n, ref, ErrValue},
		{"top-k varint cut", topk[:headerSize+32+4+1], n, ref, ErrLength},
	} {
		y, err := Decode(tc.p, tc.n, tc.ref)
		if !errors.Is(err, tc.want) || y != nil {
			t.Errorf("%s: Decode = %v (model %v), want %v", tc.name, err, y != nil, tc.want)
		}
	}
	// A receiver refuses a delta against a reference it does not keep,
	// whatever the payload claims.
	var r Receiver
	if _, _, err := r.Decode(topk, n); !errors.Is(err, ErrUnknownReference) {
		t.Errorf("Receiver.Decode of a delta with no reference: %v", err)
	}
}

// FuzzDecode: any input is decoded into a model of n bounded, finite
// values or refused with an error; never a panic. The seeds are valid
// payloads of every kind (testdata/fuzz keeps what the fuzzer found).
func FuzzDecode(f *testing.F) {
	n := 40
	x := make([]float32, n)
	ref := make([]float32, n)
	for i := range x {
		x[i], ref[i] = float32(i%7)-3, float32(i%5)/10
	}
	for _, c := range []Config{{Kind: F32}, {Kind: F16}, {Kind: Int8, Block: 16}, {Kind: DeltaInt8, Block: 16}, {Kind: DeltaTopK, TopK: 0.3}, {Kind: DeltaInt4, Block: 16}} {
		p, err := Encode(nil, c, x, ref, nn.Fingerprint(ref))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		y, err := Decode(p, n, ref)
		if err != nil {
			if y != nil {
				t.Fatal("a model with an error")
			}
			return
		}
		if len(y) != n {
			t.Fatalf("%d parameters", len(y))
		}
		for _, v := range y {
			if !(math.Abs(float64(v)) <= MaxAbs) {
				t.Fatalf("value %v", v)
			}
		}
	})
}
