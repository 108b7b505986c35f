package modelcodec

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/engine/nn"
)

func randomModel(rng *rand.Rand, n int, sd float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * sd)
	}
	return x
}

func maxErr(a, b []float32) float64 {
	var m float64
	for i := range a {
		m = max(m, math.Abs(float64(a[i]-b[i])))
	}
	return m
}

func TestParseAndString(t *testing.T) {
	for _, s := range []string{"f32", "f16", "int8", "int8:64", "delta-int8", "delta-topk", "delta-topk:0.05", "delta-int4", "delta-int4:64"} {
		c, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if c.String() != s {
			t.Errorf("Parse(%q).String() = %q", s, c.String())
		}
	}
	for _, s := range []string{"f8", "int8:8", "int8:x", "delta-topk:0", "delta-topk:1.5", "f16:3", "delta-topk:NaN"} {
		if _, err := Parse(s); !errors.Is(err, ErrConfig) {
			t.Errorf("Parse(%q) = %v, want ErrConfig", s, err)
		}
	}
	if c, _ := Parse(""); c.Kind != F32 {
		t.Errorf("Parse(\"\") = %v", c)
	}
}

// Each kind's size and error: the bytes per parameter the codec exists
// for, and the rounding error each one promises.
func TestEncodeSizesAndErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 10000
	x := randomModel(rng, n, 0.1)
	ref := make([]float32, n)
	copy(ref, x)
	for i := range ref {
		ref[i] += float32(rng.NormFloat64() * 0.01)
	}
	rd := nn.Fingerprint(ref)
	for _, tc := range []struct {
		cfg      Config
		maxBytes int
		maxErr   float64
	}{
		{Config{Kind: F32}, 4*n + headerSize, 0},
		{Config{Kind: F16}, 2*n + headerSize, 1e-3 * 0.5 * 0.5}, // |x| < 0.5: half ulp below 2^-11·2^-1
		{Config{Kind: Int8}, n + 4*(n/256+1) + 8 + headerSize, 0.5 * 0.5 / 127},
		{Config{Kind: DeltaInt8}, n + 4*(n/256+1) + 8 + headerSize + 32, 0.05 / 127},
		{Config{Kind: DeltaInt4}, n/2 + 4*(n/256+1) + 8 + headerSize + 32, 0.05 / 7},
		{Config{Kind: DeltaTopK, TopK: 0.1}, n/10*(2+2) + 4 + headerSize + 32, 0.05},
	} {
		p, err := Encode(nil, tc.cfg, x, ref, rd)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) > tc.maxBytes {
			t.Errorf("%v: %d bytes, want <= %d", tc.cfg, len(p), tc.maxBytes)
		}
		y, err := Decode(p, n, ref)
		if err != nil {
			t.Fatalf("%v: %v", tc.cfg, err)
		}
		if e := maxErr(x, y); e > tc.maxErr {
			t.Errorf("%v: max error %g, want <= %g", tc.cfg, e, tc.maxErr)
		}
	}
}

// Top-k sends exactly the largest entries of the delta and leaves the
// others at the reference.
func TestTopKSendsTheLargest(t *testing.T) {
	x := []float32{0, 5, 0, -7, 1, 0, 0, 0, 0, 0}
	ref := make([]float32, len(x))
	p, err := Encode(nil, Config{Kind: DeltaTopK, TopK: 0.2}, x, ref, nn.Fingerprint(ref))
	if err != nil {
		t.Fatal(err)
	}
	y, err := Decode(p, len(x), ref)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{0, 5, 0, -7, 0, 0, 0, 0, 0, 0}
	for i := range want {
		if y[i] != want[i] {
			t.Fatalf("got %v, want %v", y, want)
		}
	}
}

// Error feedback: a sender that keeps sending the same model over a
// delta link converges on it, because each delta carries what the last
// one left out. Without feedback (top-k of x itself every time) the
// untouched 90% would stay wrong.
func TestErrorFeedbackConverges(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := randomModel(rng, 5000, 0.1)
	for _, cfg := range []Config{{Kind: DeltaInt8}, {Kind: DeltaInt4}, {Kind: DeltaTopK, TopK: 0.1}} {
		s, _ := NewSender(cfg)
		var r Receiver
		var got []float32
		errs := []float64{}
		for range 40 {
			p, d, err := s.Encode(x)
			if err != nil {
				t.Fatal(err)
			}
			y, ack, err := r.Decode(p, len(x))
			if err != nil {
				t.Fatalf("%v: %v", cfg, err)
			}
			if ack != d {
				t.Fatalf("%v: receiver holds %v, sender thinks %v", cfg, ack, d)
			}
			s.Ack(ack)
			got = y
			errs = append(errs, maxErr(x, got))
		}
		if errs[len(errs)-1] > 1e-4 || errs[len(errs)-1] > errs[0]/100 {
			t.Errorf("%v: error %g after 40 rounds (first %g)", cfg, errs[len(errs)-1], errs[0])
		}
		if s.Fulls != 1 || s.Deltas != 39 {
			t.Errorf("%v: %d full, %d delta messages", cfg, s.Fulls, s.Deltas)
		}
	}
}

// A lost message, a reordered one, and a receiver that lost its state,
// for each delta codec: never a wrong model (the receiver's copy is the
// one the sender computed, digest for digest, and within the codec's
// rounding of the model sent), and a refused delta leads back to a full
// model.
func TestLostAndReorderedDeltas(t *testing.T) {
	for _, tc := range []struct {
		cfg Config
		// tol bounds a delta's error: half a step of the largest
		// difference between two of step()'s models (about 0.6), or
		// none for top-k, which leaves most entries to later deltas.
		tol float64
	}{
		{Config{Kind: DeltaInt8}, 0.5 / 127},
		{Config{Kind: DeltaInt4}, 0.5 / 7},
		{Config{Kind: DeltaTopK, TopK: 0.1}, math.Inf(1)},
	} {
		t.Run(tc.cfg.String(), func(t *testing.T) { lostAndReordered(t, tc.cfg, tc.tol) })
	}
}

func lostAndReordered(t *testing.T, cfg Config, tol float64) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := 3000
	s, _ := NewSender(cfg)
	var r Receiver
	step := func() []float32 { return randomModel(rng, n, 0.1) }
	deliver := func(p []byte) ([]float32, nn.Digest, error) { return r.Decode(p, n) }
	const fullTol = 0.5 / 127 // a full model is int8 against zero

	// The full model, acknowledged.
	p0, _, _ := s.Encode(step())
	_, a0, err := deliver(p0)
	if err != nil || !s.Ack(a0) {
		t.Fatalf("full model: %v", err)
	}
	// Lost: p1 never arrives, and no ack. p2 is still against a0.
	x1, x2 := step(), step()
	_, _, _ = s.Encode(x1)
	p2, d2, _ := s.Encode(x2)
	if h, _ := PeekHeader(p2); h.Kind != cfg.Kind || h.Ref != a0 {
		t.Fatalf("p2 is %v against %v, want %v against the acknowledged %v", h.Kind, h.Ref, cfg.Kind, a0)
	}
	y2, a2, err := deliver(p2)
	if err != nil || a2 != d2 || maxErr(x2, y2) > tol {
		t.Fatalf("after a lost message: err %v, maxerr %g", err, maxErr(x2, y2))
	}
	// Reordered: p3 and p4 both against a2, p4 first.
	s.Ack(a2)
	x3, x4 := step(), step()
	p3, d3, _ := s.Encode(x3)
	p4, d4, _ := s.Encode(x4)
	if _, a4, err := deliver(p4); err != nil || a4 != d4 {
		t.Fatalf("p4 first: %v", err)
	}
	if y3, a3, err := deliver(p3); err != nil || a3 != d3 || maxErr(x3, y3) > tol {
		t.Fatalf("p3 second: %v", err)
	}
	// The receiver restarts: the next delta names a reference it does not
	// hold, is refused, and the sender falls back to a full model.
	r.Reset()
	s.Ack(d4)
	x5 := step()
	p5, _, _ := s.Encode(x5)
	if _, _, err := deliver(p5); !errors.Is(err, ErrUnknownReference) {
		t.Fatalf("delta after the receiver's reset: %v, want ErrUnknownReference", err)
	}
	s.Reset()
	p6, d6, _ := s.Encode(x5)
	if h, _ := PeekHeader(p6); h.Kind != DeltaInt8 || h.Ref != (nn.Digest{}) {
		t.Fatalf("after Reset the sender sent %v against %v, want int8 against the zero model", h.Kind, h.Ref)
	}
	if y6, a6, err := deliver(p6); err != nil || a6 != d6 || maxErr(x5, y6) > fullTol {
		t.Fatalf("full model after the refusal: %v", err)
	}
	// An unknown ack changes nothing.
	if s.Ack(nn.Digest{1}) {
		t.Fatal("an unknown digest was acknowledged")
	}
}

// The receiver's reference does not alias what Decode returned.
func TestReceiverKeepsItsOwnCopy(t *testing.T) {
	x := randomModel(rand.New(rand.NewPCG(9, 9)), 500, 0.1)
	s, _ := NewSender(Config{Kind: DeltaInt8})
	var r Receiver
	p, _, _ := s.Encode(x)
	y, a, _ := r.Decode(p, len(x))
	s.Ack(a)
	for i := range y {
		y[i] = 99
	}
	p, d, _ := s.Encode(x)
	if _, a, err := r.Decode(p, len(x)); err != nil || a != d {
		t.Fatalf("reference changed by the caller: %v", err)
	}
}
