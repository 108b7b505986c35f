package aggregate

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// The takeover cases of issue #13: each test first shows that the plain
// rule is taken over by one lying neighbour, then that the robust rule
// is not, with the hand-computed result.

// boundsOnly is Robust with the default bounds and clipping so loose it
// never bites, to test the bounds alone.
func boundsOnly(inner Aggregator) Robust {
	return Robust{Bounds: DefaultBounds(), Clip: ClipConfig{Quantile: 1, Scale: 1e30}, Inner: inner}
}

func TestDecAvgDataSizeLiar(t *testing.T) {
	self := contrib(1, 100, 1)
	others := []Contribution{contrib(2, 100, 1), contrib(3, 100, 1), contrib(4, 100, 1), contrib(9, 1<<40, -5)}
	out := make([]float32, 1)
	if _, err := (DecAvg{}).Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	if math.Abs(float64(out[0])+5) > 1e-6 {
		t.Fatalf("plain DecAvg gave %v; the liar's 2^40 was expected to take it to -5", out[0])
	}
	// Median size 100, cap 4*100: the liar weighs 400/800, out = (1-5)/2.
	rep, err := boundsOnly(DecAvg{}).Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, -2)
	if rep.Bounded != 1 || rep.Used != 5 {
		t.Fatalf("report %+v", rep)
	}
	// A task maximum of 150 holds even when liars are the majority.
	b := boundsOnly(DecAvg{})
	b.Bounds.MaxDataSize = 150
	liars := []Contribution{contrib(2, 100, 1), contrib(8, 1<<40, -5), contrib(9, 1<<40, -5)}
	if _, err := b.Aggregate(self, liars, out); err != nil {
		t.Fatal(err)
	}
	near(t, out, (100*1+100*1+150*-5+150*-5)/500.0)
	if others[3].DataSize != 1<<40 {
		t.Fatal("Robust modified the caller's contribution")
	}
}

func TestFedLayLyingPeriodAndConfidence(t *testing.T) {
	// Self and two honest neighbours: period 30, c_d 0.5. The liar
	// claims period 1 and c_d 1. Params are 0 except the liar's 1, so
	// out is the liar's weight.
	mk := func(from byte, period int, cd float64, v float32) Contribution {
		c := contrib(from, 10, v)
		c.Period, c.DataConf = period, cd
		return c
	}
	self := mk(1, 30, 0.5, 0)
	others := []Contribution{mk(2, 30, 0.5, 0), mk(3, 30, 0.5, 0), mk(9, 1, 1, 1)}
	f, err := NewFedLay(DefaultFedLayConfig())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, 1)
	if _, err := f.Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	// Honest c = .5*.5/1 + .5*(1/30)/1 = 4/15, liar c = 1: 1/(3*4/15+1) = 5/9.
	near(t, out, 5.0/9)
	// Bounded: the liar's period counts as 30, its c_d as min(1, 2*.5):
	// honest c = .5*.5 + .5*1 = .75, liar 1: 1/(3*.75+1) = 4/13, just
	// 4/3 of self's .75/3.25.
	rep, err := boundsOnly(f).Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 4.0/13)
	if rep.Bounded != 1 {
		t.Fatalf("report %+v", rep)
	}
	// A c_d claim above twice ours is cut: self c_d .25, liar 1 -> .5.
	self.DataConf = 0.25
	others[2].Period = 30
	if _, err := boundsOnly(f).Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	// c_d: self .25, honest .5, .5, liar .5 (cut); max .5; c_c all 1.
	// c = .5*cd/.5 + .5: self .75, others 1 each: liar 1/3.75.
	near(t, out, 1/3.75)
}

func TestDecHWHessianLiar(t *testing.T) {
	h := func(v ...float32) []float32 { return v }
	mk := func(from byte, hess []float32, p ...float32) Contribution {
		c := contrib(from, 10, p...)
		c.Hessian = hess
		return c
	}
	self := mk(1, h(1, 1, 1, 1), 1, 1, 1, 1)
	others := []Contribution{
		mk(2, h(1, 1, 1, 1), 1, 1, 1, 1),
		mk(3, h(1, 1, 1, 1), 1, 1, 1, 1),
		mk(9, h(1e30, 0, 0, 0), -5, -5, -5, -5),
	}
	d, err := NewDecHW(DefaultDecHWConfig())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, 4)
	if _, err := d.Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	if math.Abs(float64(out[0])+5) > 1e-6 {
		t.Fatalf("plain DecHW gave %v; the 1e30 Hessian was expected to take parameter 0 to -5", out)
	}
	// Unit mean: the liar's diagonal becomes (4,0,0,0), the others stay
	// 1; entry 0 is capped at 3*median(1,1,1,4) = 3:
	// out0 = (1+1+1+3*-5)/6 = -2; the liar has no weight elsewhere.
	d2, _ := NewDecHW(DefaultDecHWConfig())
	rep, err := boundsOnly(d2).Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, -2, 1, 1, 1)
	if !rep.Hessian || rep.Bounded != 1 {
		t.Fatalf("report %+v", rep)
	}
	if others[2].Hessian[0] != 1e30 || self.Hessian[0] != 1 {
		t.Fatal("Robust modified the caller's Hessians")
	}
	// A uniform 1e30 is only a scale: after scaling it weighs like 1.
	others[2].Hessian = h(1e30, 1e30, 1e30, 1e30)
	d3, _ := NewDecHW(DefaultDecHWConfig())
	if _, err := boundsOnly(d3).Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	near(t, out, -0.5, -0.5, -0.5, -0.5) // (1+1+1-5)/4
}

func TestHugeMagnitude(t *testing.T) {
	self := contrib(1, 1, 1, 1)
	others := []Contribution{
		contrib(2, 1, 1.2, 1), contrib(3, 1, 0.75, 1), contrib(4, 1, 1, 1.1),
		contrib(9, 1, 3e38, 3e38),
	}
	out := make([]float32, 2)
	if _, err := (Mean{}).Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	if out[0] < 1e37 {
		t.Fatalf("plain mean gave %v; 3e38 was expected to take it to 6e37", out)
	}
	// Clipped at the median without rejection (the arithmetic of
	// clipping alone; TestClipReject covers rejection): distances .2,
	// .25, .1, ~4.2e38; median (2nd of 4) .2 = tau: peer 3 is moved to .8
	// (severity 1-.2/.25), the liar to self + .2*(1,1)/sqrt 2 (severity ~1).
	c := .2 / math.Sqrt2
	a := Robust{Bounds: DefaultBounds(), Clip: ClipConfig{Quantile: 0.5, Scale: 1}, Inner: Mean{}}
	rep, err := a.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, (1+1.2+0.8+1+1+c)/5, (1+1+1+1.1+1+c)/5)
	if o := rep.Outliers; len(o) != 2 || o[0].Index != 1 || math.Abs(o[0].Severity-0.2) > 1e-6 ||
		o[1].Index != 3 || o[1].Severity < 0.999 {
		t.Fatalf("outliers %+v", rep.Outliers)
	}
	// Median: x from (.75 1 1 1.2 3e38), y from (1 1 1 1.1 3e38).
	if rep, err = (Median{}).Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	near(t, out, 1, 1)
	// Trimmed mean drops one at each end: x mean(1 1 1.2), y mean(1 1 1.1).
	if rep, err = (TrimmedMean{Trim: DefaultTrim}).Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	near(t, out, 3.2/3, 3.1/3)
	// The liar is dropped at both coordinates (severity (1-.4)/.6 = 1);
	// peer 3's 0.75 at one of two ((.5-.4)/.6 = 1/6).
	want := []Outlier{{Index: 1, From: id(3), Severity: 1.0 / 6}, {Index: 3, From: id(9), Severity: 1}}
	if len(rep.Outliers) != 2 {
		t.Fatalf("outliers %+v", rep.Outliers)
	}
	for k, o := range rep.Outliers {
		if o.Index != want[k].Index || o.From != want[k].From || math.Abs(o.Severity-want[k].Severity) > 1e-12 {
			t.Fatalf("outliers %+v, want %+v", rep.Outliers, want)
		}
	}
	if others[3].Params[0] != 3e38 {
		t.Fatal("clipping modified the caller's parameters")
	}
	// The default "clipped-mean": reference .2 (the ceil(.34*4) = 2nd
	// closest), tau .3, reject beyond .5: the honest three pass the L2
	// clip whole, the liar is dropped and takes no weight (severity ~1).
	// At coordinate 1 only peer 4 moves (1.1; the others' moves are 0,
	// and self has no Origin, so no floor from our step): the coordinate
	// radius, 16 times the median move, 0, holds it at ours.
	def, err := New("clipped-mean")
	if err != nil {
		t.Fatal(err)
	}
	if rep, err = def.Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	near(t, out, (1+1.2+0.75+1)/4.0, 1)
	if rep.Used != 4 || len(rep.Outliers) != 1 || rep.Outliers[0].From != id(9) || rep.Outliers[0].Severity < 0.999 {
		t.Fatalf("default clipping: used %d, outliers %+v", rep.Used, rep.Outliers)
	}
}

func TestClipQuantile(t *testing.T) {
	// Distances 1, 2, 3, 10 from self 0. Quantile .75 of 4 -> 3rd = 3,
	// scale 1: tau 3, only the 10 is cut (to 3, severity .7).
	self := contrib(1, 1, 0)
	others := []Contribution{contrib(2, 1, 1), contrib(3, 1, -2), contrib(4, 1, 3), contrib(5, 1, 10)}
	r := Robust{Bounds: DefaultBounds(), Clip: ClipConfig{Quantile: 0.75, Scale: 1}, Inner: Mean{}}
	out := make([]float32, 1)
	rep, err := r.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, (0+1-2+3+3)/5.0)
	if len(rep.Outliers) != 1 || rep.Outliers[0].From != id(5) || math.Abs(rep.Outliers[0].Severity-0.7) > 1e-9 {
		t.Fatalf("outliers %+v", rep.Outliers)
	}
}

func TestCoordinateRulesInPlaceAndSmall(t *testing.T) {
	// Two contributors: median is their mean; trimmed mean trims none.
	self := contrib(1, 0, 1, 5)
	others := []Contribution{contrib(2, 0, 3, -1)}
	if _, err := (Median{}).Aggregate(self, others, self.Params); err != nil {
		t.Fatal(err)
	}
	near(t, self.Params, 2, 2)
	// Six contributors, trim .2: b = 1; mean of the middle four.
	self = contrib(1, 0, 6)
	others = []Contribution{contrib(2, 0, 1), contrib(3, 0, 2), contrib(4, 0, 3), contrib(5, 0, 4), contrib(6, 0, 5)}
	out := make([]float32, 1)
	if _, err := (TrimmedMean{Trim: 0.2}).Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	near(t, out, 3.5)
	if _, err := (TrimmedMean{Trim: 0.5}).Aggregate(self, others, out); err == nil {
		t.Fatal("trim 0.5 accepted")
	}
	if _, err := (Median{}).Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	near(t, out, 3.5)
}

func TestByName(t *testing.T) {
	for _, n := range Names() {
		a, err := New(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if (n == "dechw" || n == "clipped-dechw") != (DecHWOf(a) != nil) {
			t.Errorf("%s: DecHWOf = %v", n, DecHWOf(a))
		}
	}
	for _, n := range Names() {
		if want := n == "median" || n == "trimmed-mean" || strings.HasPrefix(n, "clipped-") || strings.HasPrefix(n, "winsorised-"); IsRobustName(n) != want {
			t.Errorf("IsRobustName(%s) = %v", n, !want)
		}
	}
	if !slices.Contains(Names(), SafeDefault) || !IsRobustName(SafeDefault) {
		t.Fatalf("SafeDefault %q not a name", SafeDefault)
	}
	for _, n := range []string{"clipped-fedavg", "clipped-median", "clipped-clipped-mean", "krum"} {
		if _, err := New(n); err == nil {
			t.Errorf("%s accepted", n)
		}
	}
	o := DefaultOptions()
	o.Clip.Scale = 0
	if _, err := NewWith("clipped-mean", o); err == nil {
		t.Error("clip scale 0 accepted")
	}
}

func TestClipReject(t *testing.T) {
	// Distances 1, 10, 2, 3 from self 0 (and a refused model of the wrong
	// length last). Quantile .5 of 4 -> 2nd = 2 = tau; Reject 2 -> radius
	// 4: 1 and 2 pass, 3 is cut to 2 (severity 1/3), 10 is dropped whole
	// and left out of the mean, (0+1+2+2)/4; its severity says how far out
	// it was, 1 - 2/10.
	self := contrib(1, 1, 0)
	others := []Contribution{contrib(2, 1, 1), contrib(3, 1, 10), contrib(4, 1, 2), contrib(5, 1, 3), contrib(6, 1, 1, 1)}
	r := Robust{Bounds: DefaultBounds(), Clip: ClipConfig{Quantile: 0.5, Scale: 1, Reject: 2}, Inner: Mean{}}
	out := make([]float32, 1)
	rep, err := r.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 1.25)
	if rep.Used != 4 {
		t.Errorf("used %d, want 4 (self and three neighbours)", rep.Used)
	}
	if len(rep.Refused) != 1 || rep.Refused[0].Index != 4 || rep.Refused[0].From != id(6) {
		t.Errorf("refused %+v, want index 4 (the caller's numbering)", rep.Refused)
	}
	want := []Outlier{{Index: 1, From: id(3), Severity: 0.8}, {Index: 3, From: id(5), Severity: 1.0 / 3}}
	if len(rep.Outliers) != len(want) {
		t.Fatalf("outliers %+v, want %+v", rep.Outliers, want)
	}
	for k, o := range rep.Outliers {
		if o.Index != want[k].Index || o.From != want[k].From || math.Abs(o.Severity-want[k].Severity) > 1e-9 {
			t.Fatalf("outliers %+v, want %+v", rep.Outliers, want)
		}
	}
	for _, bad := range []float64{0.5, -1, math.Inf(1), math.NaN()} {
		if err := (ClipConfig{Quantile: 0.5, Scale: 1, Reject: bad}).Validate(); err == nil {
			t.Errorf("reject %v accepted", bad)
		}
	}
}
