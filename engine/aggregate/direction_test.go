package aggregate

import (
	"math"
	"testing"
)

// withOrigin is self with the point its last local training started from.
func withOrigin(c Contribution, origin ...float32) Contribution {
	c.Origin = origin
	return c
}

// TestClipDirection: our step is (1, 0) from origin (0, 0). Neighbour b
// at (-0.2, 0.5) sits inside the honest spread (distance 1.30 from us,
// tau 1.5 x 1.118 = 1.68, no clipping) but points back against our
// step: cosine -0.2/sqrt(0.29) = -0.371 < -0.3. The direction check
// leaves it out: mean of self (1, 0), a (1, 0.5), c (0.5, 1) =
// (0.8333, 0.5); without the check, or without an Origin, the mean of
// all four is (0.575, 0.5).
func TestClipDirection(t *testing.T) {
	clip := ClipConfig{Quantile: 0.34, Scale: 1.5, Reject: 5.0 / 3.0, Direction: true, MinCosine: -0.3}
	self := withOrigin(contrib(1, 1, 1, 0), 0, 0)
	others := []Contribution{contrib(2, 1, 1, 0.5), contrib(3, 1, -0.2, 0.5), contrib(4, 1, 0.5, 1)}
	out := make([]float32, 2)
	rep, err := Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 2.5/3, 0.5)
	if rep.Used != 3 || len(rep.Outliers) != 1 || rep.Outliers[0].Index != 1 || rep.Outliers[0].From != id(3) {
		t.Fatalf("report %+v: want b (index 1) the only outlier, 3 used", rep)
	}
	// Severity: how far the cosine falls below MinCosine, over 1 +
	// MinCosine: (-0.3 - cos) / 0.7 = 0.102, under the reputation's
	// tolerance (0.5): reputation charges only cosines below -0.65.
	cos := -0.2 / math.Sqrt(0.29)
	if s, want := rep.Outliers[0].Severity, (-0.3-cos)/0.7; math.Abs(s-want) > 1e-6 {
		t.Fatalf("severity %v, want %v", s, want)
	}

	// No Origin (before our first round): no step, no check.
	if _, err := (Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}).Aggregate(contrib(1, 1, 1, 0), others, out); err != nil {
		t.Fatal(err)
	}
	near(t, out, 0.575, 0.5)
	// A zero step (origin = self): no direction to compare with.
	if _, err := (Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}).Aggregate(withOrigin(contrib(1, 1, 1, 0), 1, 0), others, out); err != nil {
		t.Fatal(err)
	}
	near(t, out, 0.575, 0.5)
	// The check off: the same.
	clip.Direction = false
	if _, err := (Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}).Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	near(t, out, 0.575, 0.5)
	// A neighbour's Origin is never read: b claiming an origin that
	// would make its difference point our way changes nothing.
	clip.Direction = true
	others[1].Origin = []float32{-10, 0}
	if _, err := (Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}).Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	near(t, out, 2.5/3, 0.5)
}

// TestClipLiarMajority: two of three neighbours are sign-flipped liars
// at (-3, 0) and (-3, 0.1); the honest one is at (1.2, 0). The
// closest-third quantile (2nd closest of 3) is a liar's distance, 4.0:
// tau 6 and rejection radius 10 let both liars in unclipped, and the
// mean of the four is (-0.95, 0.025). Our own step, (1, 0) from origin
// (0, 0), is a reference no neighbour can bend: the liars' differences
// from the origin have cosines -1 and -0.9994 with it. The direction
// check refuses both, the one that is the reference distance (4.0)
// too: the mean of self and the honest one is (1.1, 0).
//
// The default asks for DirectionWitnesses (4) neighbours' models before
// it refuses for direction: with these three it lets both liars in like
// the quantile alone (a liar majority of a neighbourhood of 3 is beyond
// what it promises; see DirectionWitnesses for the honest peer the
// check shut out there), except at coordinate 1: only one liar moves
// there (0.1) and we did not (our step is along coordinate 0), so the
// coordinate radius (16 times the median move, 0, at least 64 times our
// step there, 0) clamps it: (-0.95, 0). With a third liar at (-3, -0.1)
// (4 models) it refuses all three and gives (1.1, 0) again.
func TestClipLiarMajority(t *testing.T) {
	self := withOrigin(contrib(1, 1, 1, 0), 0, 0)
	others := []Contribution{contrib(2, 1, -3, 0), contrib(3, 1, -3, 0.1), contrib(4, 1, 1.2, 0)}
	four := append(append([]Contribution(nil), others...), contrib(5, 1, -3, -0.1))
	out := make([]float32, 2)
	for _, tc := range []struct {
		name   string
		clip   ClipConfig
		others []Contribution
		want   []float64
	}{
		{"quantile only", ClipConfig{Quantile: 0.34, Scale: 1.5, Reject: 5.0 / 3.0}, others, []float64{-0.95, 0.025}},
		{"direction", ClipConfig{Quantile: 0.34, Scale: 1.5, Reject: 5.0 / 3.0, Direction: true, MinCosine: -0.3}, others, []float64{1.1, 0}},
		{"default, 3 neighbours", toyClip(), others, []float64{-0.95, 0}},
		{"default, 4 neighbours", toyClip(), four, []float64{1.1, 0}},
	} {
		if _, err := (Robust{Bounds: DefaultBounds(), Clip: tc.clip, Inner: Mean{}}).Aggregate(self, tc.others, out); err != nil {
			t.Fatal(err)
		}
		t.Run(tc.name, func(t *testing.T) { near(t, out, tc.want...) })
	}
}

// TestClipConfigValidateDirection refuses a MinCosine outside [-1, 1).
func TestClipConfigValidateDirection(t *testing.T) {
	base := DefaultClipConfig()
	for _, bad := range []float64{1, -1.5, math.NaN()} {
		c := base
		c.MinCosine = bad
		if err := c.Validate(); err == nil {
			t.Errorf("min cosine %v validated", bad)
		}
	}
	if err := base.Validate(); err != nil {
		t.Fatal(err)
	}
	c := base
	c.DirectionWitnesses = -1
	if err := c.Validate(); err == nil {
		t.Error("direction witnesses -1 validated")
	}
}

// TestClipDirectionInsideReference: an IPM-like model closer to us than
// the reference distance that points back against our step is left out
// too. Self (1, 0), origin (0, 0): our step is (1, 0). Honest a (1, 1.5),
// b (1.2, -1.6), c (2.4, 0.9) at distances 1.5, 1.612, 1.664 (cosines
// 0.555, 0.6, 0.936); m (-0.2, 0.3) at 1.237, the closest, with cosine
// -0.2/sqrt(0.13) = -0.555. The reference is the 2nd closest of 4, a's
// 1.5 (tau 2.25): m is inside it, and the check that looked only beyond
// the reference used it whole, mean of all five (1.08, 0.22). Now it is
// left out: mean of self, a, b, c = (1.4, 0.2). Its outlier severity is
// the behind check's (it sits 1.2 behind the neighbours' median position
// 1, 0.8 reference distances: capped at 1), larger than the direction's
// (-0.3 + 0.555)/0.7 = 0.364.
func TestClipDirectionInsideReference(t *testing.T) {
	self := withOrigin(contrib(1, 1, 1, 0), 0, 0)
	others := []Contribution{contrib(2, 1, 1, 1.5), contrib(3, 1, 1.2, -1.6), contrib(4, 1, 2.4, 0.9), contrib(5, 1, -0.2, 0.3)}
	out := make([]float32, 2)
	rep, err := Robust{Bounds: DefaultBounds(), Clip: toyClip(), Inner: Mean{}}.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 1.4, 0.2)
	if rep.Used != 4 || len(rep.Outliers) != 1 || rep.Outliers[0].From != id(5) ||
		rep.Outliers[0].Action != OutlierLeftOut || math.Abs(rep.Outliers[0].Severity-1) > 1e-9 {
		t.Fatalf("report %+v: want m (from 5) the only outlier, left out with severity 1, 4 used", rep)
	}
}
