package aggregate

import (
	"errors"
	"math"
	"testing"
)

func TestDataConfidence(t *testing.T) {
	cases := []struct {
		hist   []int
		kl, cd float64
	}{
		{[]int{5, 5}, 0, 1},                                 // balanced: KL 0
		{[]int{10, 0}, math.Ln2, 0.5},                       // one label of 2: KL ln 2, c_d 1/2
		{[]int{7, 0, 0, 0}, math.Log(4), 0.25},              // one label of 4: c_d 1/K
		{[]int{2, 1, 1, 0}, 0.5 * math.Ln2, 1 / math.Sqrt2}, // .5 ln(.5*4) + 2*.25 ln(.25*4)
		{[]int{3, 1}, 0.75*math.Log(1.5) + 0.25*math.Log(0.5), math.Pow(1.5, -0.75) * math.Pow(0.5, -0.25)},
	}
	for _, c := range cases {
		kl, err := KLFromUniform(c.hist)
		if err != nil || math.Abs(kl-c.kl) > 1e-12 {
			t.Errorf("KL(%v) = %v, %v; want %v", c.hist, kl, err, c.kl)
		}
		cd, err := DataConfidence(c.hist)
		if err != nil || math.Abs(cd-c.cd) > 1e-12 {
			t.Errorf("c_d(%v) = %v, %v; want %v", c.hist, cd, err, c.cd)
		}
	}
	for _, bad := range [][]int{nil, {0, 0}, {3, -1}} {
		if _, err := DataConfidence(bad); !errors.Is(err, ErrLabelHist) {
			t.Errorf("c_d(%v) err %v, want ErrLabelHist", bad, err)
		}
	}
}

func TestConfidenceFormula(t *testing.T) {
	c := DefaultFedLayConfig()
	// c = .5 * 0.5/1 + .5 * (1/20)/(1/5) = .25 + .125
	if got := c.Confidence(0.5, 1, 20, 5); math.Abs(got-0.375) > 1e-12 {
		t.Errorf("confidence %v, want 0.375", got)
	}
	if got := CommConfidence(4); got != 0.25 {
		t.Errorf("c_c(4) = %v", got)
	}
	if got := c.Confidence(0.5, 1, 0, 5); got != 0 {
		t.Errorf("period 0 gives %v, want 0", got)
	}
}

// fedlayCase: self c_d 1, T 10; n1 c_d 1/2, T 20; n2 c_d 1/4, T 5.
// max c_d = 1, min T = 5, so with a_d = a_c = 1/2:
// c_self = .5 + .5*5/10 = .75, c_n1 = .25 + .125 = .375, c_n2 = .125 + .5 = .625,
// sum 1.75: weights 6/14, 3/14, 5/14.
func fedlayCase() (Contribution, []Contribution) {
	self := Contribution{From: id(1), Arch: "m", Params: []float32{14, 0}, DataConf: 1, Period: 10}
	others := []Contribution{
		{From: id(2), Arch: "m", Params: []float32{0, 14}, DataConf: 0.5, Period: 20},
		{From: id(3), Arch: "m", Params: []float32{0, 0}, DataConf: 0.25, Period: 5},
		{From: id(4), Arch: "m", Params: []float32{9, 9}, DataConf: 0, Period: 5},   // refused: c_d 0
		{From: id(5), Arch: "m", Params: []float32{9, 9}, DataConf: 0.5, Period: 0}, // refused: T 0
	}
	return self, others
}

func TestFedLayAggregate(t *testing.T) {
	self, others := fedlayCase()
	f := FedLay{Config: DefaultFedLayConfig()}
	w, _, err := f.Weights(self, others, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{6.0 / 14, 3.0 / 14, 5.0 / 14} {
		if math.Abs(w[i]-want) > 1e-12 {
			t.Fatalf("weights %v, want 6/14 3/14 5/14", w)
		}
	}
	out := make([]float32, 2)
	rep, err := f.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 6, 3)
	if rep.Used != 3 || len(rep.Refused) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, r := range rep.Refused {
		if !errors.Is(r.Err, ErrConfidence) {
			t.Errorf("refusal %+v, want ErrConfidence", r)
		}
	}

	// Data confidence only: weights 1 : 1/2 : 1/4 of 1.75.
	f.Config = FedLayConfig{DataWeight: 1}
	if _, err := f.Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	near(t, out, 8, 4)
}

func TestFedLayConfigValidate(t *testing.T) {
	if err := DefaultFedLayConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []FedLayConfig{{}, {DataWeight: -1, CommWeight: 2}, {DataWeight: math.NaN(), CommWeight: 1}} {
		if _, err := NewFedLay(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: err %v, want ErrConfig", c, err)
		}
	}
}
