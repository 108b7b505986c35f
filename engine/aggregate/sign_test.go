package aggregate

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSignCheck: four honest neighbours differ from our model in both
// directions (signs drawn at random, 1/2 each); the fifth, ALIE's kind,
// is the honest mean moved down at 90% of the coordinates, by less than
// the honest neighbours' own distance, so the distance rules use it
// whole. With SignBar 0.2 (bar at 70% one way) it is left out and
// charged past the tolerance: severity (0.9 - 0.5 - 0.2) / 0.3 = 0.667;
// every honest one is used. Neighbours all one way alike (a peer held
// back while they progress) are used, and with fewer than
// DirectionWitnesses neighbours there is no check. SignBar 0 leaves the
// liar in.
func TestSignCheck(t *testing.T) {
	const m = 1000
	rng := rand.New(rand.NewPCG(1, 2))
	self := contrib(1, 1, make([]float32, m)...)
	var others []Contribution
	for n := byte(2); n <= 5; n++ {
		p := make([]float32, m)
		for i := range p {
			p[i] = float32(rng.NormFloat64())
		}
		others = append(others, contrib(n, 1, p...))
	}
	liar := make([]float32, m)
	for i := range liar {
		liar[i] = 0.5 // down at the first 90% of the coordinates, up at the rest
		if i < 9*m/10 {
			liar[i] = -0.5
		}
	}
	others = append(others, contrib(6, 1, liar...))
	if d, h := distance(self.Params, liar), distance(self.Params, others[0].Params); d >= h {
		t.Fatalf("the liar at %v, not inside the honest distance %v", d, h)
	}
	if down, ok := signShare(self.Params, liar); !ok || math.Abs(down-0.9) > 1e-12 {
		t.Fatalf("liar's share down %v %v, want 0.9", down, ok)
	}
	clip := DefaultClipConfig()
	clip.CoordRadius, clip.CoordFloor = 0, 0 // the distance rules alone, and the sign check
	clip.SignBar = 0.2
	out := make([]float32, m)
	rep, err := Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	var left []int
	for _, o := range rep.Outliers {
		if o.Action == OutlierLeftOut {
			left = append(left, o.Index)
		}
		if o.Index == 4 {
			if want := (0.9 - 0.5 - 0.2) / 0.3; math.Abs(o.Severity-want) > 1e-9 || o.Severity <= DefaultReputationConfig().Tolerance {
				t.Errorf("liar's severity %v, want %v, past the tolerance", o.Severity, want)
			}
		}
	}
	if !slices.Equal(left, []int{4}) || rep.Used != 5 {
		t.Fatalf("left out %v, used %d: want only the liar (index 4) left out, self and 4 honest used (%+v)", left, rep.Used, rep)
	}
	// A peer held back: every neighbour is ahead of it along a
	// progress that moves 80% of the weights up (and each moves a few
	// of its own): one-way, but like the rest, so nobody is refused.
	var ahead []Contribution
	for n := byte(2); n <= 6; n++ {
		p := make([]float32, m)
		for i := range p {
			p[i] = 1
			if i%5 == 0 {
				p[i] = -1
			}
			p[i] += 0.1 * float32(rng.NormFloat64())
		}
		ahead = append(ahead, contrib(n, 1, p...))
	}
	rep, err = Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}.Aggregate(self, ahead, out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Used != 6 {
		t.Fatalf("held back: used %d, want all 6 (%+v)", rep.Used, rep)
	}
	// Fewer judged neighbours than DirectionWitnesses: no check.
	rep, err = Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}.Aggregate(self, others[2:], out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Used != 4 {
		t.Fatalf("3 neighbours: used %d, want all (%+v)", rep.Used, rep)
	}
	clip.SignBar = 0
	rep, err = Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Used != 6 {
		t.Fatalf("without the check: used %d, want all 6 (%+v)", rep.Used, rep)
	}
}

// TestSignSeverity: inside the bar 0, either way past it the same, 1
// at a difference all one way; no changed coordinate, no share.
func TestSignSeverity(t *testing.T) {
	c := ClipConfig{SignBar: 0.2}
	for _, tc := range []struct{ down, want float64 }{{0.5, 0}, {0.7, 0}, {0.3, 0}, {0.85, 0.5}, {0.15, 0.5}, {1, 1}, {0, 1}} {
		if got := c.signSeverity(tc.down); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("share down %v: severity %v, want %v", tc.down, got, tc.want)
		}
	}
	if _, ok := signShare([]float32{1, 2}, []float32{1, 2}); ok {
		t.Error("equal models: a share, want none")
	}
	few := make([]float32, SignMinChanged)
	for i := range few {
		few[i] = -1
	}
	if _, ok := signShare(make([]float32, SignMinChanged-1), few); ok {
		t.Errorf("%d coordinates all down: a share, want none under %d", SignMinChanged-1, SignMinChanged)
	}
	if down, ok := signShare(make([]float32, SignMinChanged), few); !ok || down != 1 {
		t.Errorf("%d coordinates all down: share %v %v, want 1", SignMinChanged, down, ok)
	}
	if (ClipConfig{SignBar: 0}).signSeverity(1) != 0 {
		t.Error("the check off: a severity")
	}
	for _, bar := range []float64{-0.1, 0.5, math.NaN()} {
		c := DefaultClipConfig()
		c.SignBar = bar
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("SignBar %v: %v, want ErrConfig", bar, err)
		}
	}
}
