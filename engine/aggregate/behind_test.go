package aggregate

import (
	"errors"
	"math"
	"testing"
)

// TestClipBehind: our step is (1, 0) from origin (0, 0). Four neighbours
// sit across it, at positions 0.2, 0, 0.1 and -0.1 along it; f at
// (-0.6, 2) sits 0.6 behind the origin, inside the honest spread
// (distance 2.56 from us, tau 1.5 x 2.193 = 3.29: not clipped) and not
// back enough for the direction check (cosine -0.6/2.088 = -0.287). The
// aggregate is the plain mean of all six, (0.1, 1/3), with the check on
// or off: it only reports. The neighbours' lower median position is 0
// (of -0.6, -0.1, 0, 0.1, 0.2), the reference distance 2.193 (c's, the
// 2nd closest of 5): f is 0.6/2.193 = 0.2736 reference distances behind,
// severity 0.2736/0.4 = 0.684, above reputation's tolerance, and d
// 0.1/2.193 = 0.0456 behind, severity 0.114, below it. Reputation drops f
// after 8 such rounds (cost 0.3 x (0.684 - 0.5)/0.5 = 0.110 a round); d
// keeps its full score. Before the check existed nothing was reported
// and f stayed linked.
func TestClipBehind(t *testing.T) {
	clip := toyClip()
	self := withOrigin(contrib(1, 1, 1, 0), 0, 0)
	others := []Contribution{contrib(2, 1, 0.2, 2), contrib(3, 1, 0, 2), contrib(4, 1, 0.1, -2),
		contrib(5, 1, -0.1, -2), contrib(6, 1, -0.6, 2)}
	out := make([]float32, 2)
	rep, err := Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 0.1, 1.0/3)
	if rep.Used != 6 || len(rep.Outliers) != 2 {
		t.Fatalf("report %+v: want all 6 used, d and f reported", rep)
	}
	ref := math.Sqrt(0.81 + 4)
	for _, tc := range []struct {
		index int
		want  float64
	}{{3, 0.1 / ref / 0.4}, {4, 0.6 / ref / 0.4}} {
		o := rep.Outliers[tc.index-3]
		if o.Index != tc.index || math.Abs(o.Severity-tc.want) > 1e-6 || o.Action != OutlierFlagged {
			t.Fatalf("outlier %+v, want index %d severity %.4f, flagged (used whole)", o, tc.index, tc.want)
		}
	}

	r, err := NewReputation(DefaultReputationConfig())
	if err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= 8; round++ {
		r.Observe(others, rep)
		if dropped := r.ShouldDrop(id(6)); dropped != (round == 8) {
			t.Fatalf("round %d: f dropped %v (score %.3f), want only from round 8", round, dropped, r.Score(id(6)))
		}
	}
	if r.Score(id(5)) != 1 {
		t.Fatalf("d charged: score %v", r.Score(id(5)))
	}

	// The check off, no Origin (before our first round), or a zero step
	// (origin = self): the same aggregate, nothing reported.
	off := clip
	off.Behind = 0
	for _, tc := range []struct {
		name string
		clip ClipConfig
		self Contribution
	}{
		{"off", off, self},
		{"no origin", clip, contrib(1, 1, 1, 0)},
		{"zero step", clip, withOrigin(contrib(1, 1, 1, 0), 1, 0)},
	} {
		rep, err = Robust{Bounds: DefaultBounds(), Clip: tc.clip, Inner: Mean{}}.Aggregate(tc.self, others, out)
		if err != nil {
			t.Fatal(err)
		}
		near(t, out, 0.1, 1.0/3)
		if len(rep.Outliers) != 0 {
			t.Fatalf("%s: outliers %+v", tc.name, rep.Outliers)
		}
	}
}

// TestClipBehindAllAlike: on strongly non-IID data every honest
// neighbour may lack our classes and sit behind our step alike. Four
// neighbours all 0.6 behind the origin, at (-0.6, +-2) and (-0.6, +-2.1)
// (cosines -0.287 and -0.275: not refused for direction), are at the
// neighbourhood's median position: none is reported, where a threshold
// on the distance behind our origin (0.6 over the reference distance
// 2.561 = 0.234, severity 0.586 at Behind 0.4) would charge them all.
func TestClipBehindAllAlike(t *testing.T) {
	self := withOrigin(contrib(1, 1, 1, 0), 0, 0)
	others := []Contribution{contrib(2, 1, -0.6, 2), contrib(3, 1, -0.6, -2), contrib(4, 1, -0.6, 2.1), contrib(5, 1, -0.6, -2.1)}
	out := make([]float32, 2)
	rep, err := Robust{Bounds: DefaultBounds(), Clip: DefaultClipConfig(), Inner: Mean{}}.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Outliers) != 0 {
		t.Fatalf("outliers %+v: neighbours alike behind reported", rep.Outliers)
	}
}

func TestClipConfigValidateBehind(t *testing.T) {
	for _, b := range []float64{-0.1, math.Inf(1), math.NaN()} {
		c := DefaultClipConfig()
		c.Behind = b
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("behind %v: %v, want ErrConfig", b, err)
		}
	}
}
