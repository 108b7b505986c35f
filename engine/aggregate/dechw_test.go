package aggregate

import (
	"errors"
	"math"
	"testing"
)

func TestDecHWObserve(t *testing.T) {
	d, err := NewDecHW(DecHWConfig{Beta: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if d.Accumulated() != nil {
		t.Fatal("accumulator before any Observe")
	}
	if err := d.Observe([]float32{0, 0}); err != nil || d.Accumulated() != nil {
		t.Fatalf("zero diagonal: %v %v", d.Accumulated(), err)
	}
	// First: H^ = h/||h|| = [3,4]/5, no beta (Algorithm 1, line 3).
	if err := d.Observe([]float32{3, 4}); err != nil {
		t.Fatal(err)
	}
	near(t, d.Accumulated(), 0.6, 0.8)
	// Then H^ += beta h/||h|| = .5 * [0,2]/2 (Eq. 5).
	if err := d.Observe([]float32{0, 2}); err != nil {
		t.Fatal(err)
	}
	near(t, d.Accumulated(), 0.6, 1.3)
	for _, bad := range [][]float32{{1}, {1, -1}, {1, float32(math.NaN())}, {float32(math.Inf(1)), 0}, nil} {
		if err := d.Observe(bad); !errors.Is(err, ErrHessian) {
			t.Errorf("Observe(%v) err %v, want ErrHessian", bad, err)
		}
	}
	near(t, d.Accumulated(), 0.6, 1.3)
}

// dechwCase: self w=[1,10,5] H=[1,0,0] |D|=1; n w=[3,20,7] H=[3,2,0] |D|=3.
func dechwCase() (Contribution, Contribution) {
	self := contrib(1, 1, 1, 10, 5)
	self.Hessian = []float32{1, 0, 0}
	n := contrib(2, 3, 3, 20, 7)
	n.Hessian = []float32{3, 2, 0}
	return self, n
}

func TestDecHWHessianWeightsAndFallback(t *testing.T) {
	d, _ := NewDecHW(DefaultDecHWConfig())
	self, n := dechwCase()
	noH := contrib(3, 1, 9, 9, 9)
	neg := contrib(4, 1, 9, 9, 9)
	neg.Hessian = []float32{1, -1, 0}
	out := make([]float32, 3)
	rep, err := d.Aggregate(self, []Contribution{n, noH, neg}, out)
	if err != nil {
		t.Fatal(err)
	}
	// p0: (1*1 + 3*3)/(1+3) = 2.5; p1: (0*10 + 2*20)/2 = 20;
	// p2: no Hessian weight, tau = [1/4, 3/4]: 5/4 + 21/4 = 6.5.
	near(t, out, 2.5, 20, 6.5)
	if !rep.Hessian || rep.Fallback != 1 || rep.Used != 2 || len(rep.Refused) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, r := range rep.Refused {
		if !errors.Is(r.Err, ErrHessian) {
			t.Errorf("refusal %+v, want ErrHessian", r)
		}
	}
}

func TestDecHWTheta(t *testing.T) {
	d, _ := NewDecHW(DecHWConfig{Beta: 1, Theta: 2})
	self, n := dechwCase()
	noH := contrib(3, 0, 9, 9, 9)
	out := make([]float32, 3)
	for round := 1; round <= 3; round++ {
		if d.UseHessian() != (round <= 2) {
			t.Fatalf("round %d: UseHessian %v", round, d.UseHessian())
		}
		rep, err := d.Aggregate(self, []Contribution{n, noH}, out)
		if err != nil {
			t.Fatal(err)
		}
		if round <= 2 {
			near(t, out, 2.5, 20, 6.5)
			if !rep.Hessian || len(rep.Refused) != 1 {
				t.Fatalf("round %d: report %+v", round, rep)
			}
			continue
		}
		// Past theta: data-size mean; noH (|D| = 0) is accepted with weight 0.
		near(t, out, 2.5, 17.5, 6.5)
		if rep.Hessian || rep.Used != 3 || rep.Refused != nil {
			t.Fatalf("round 3: report %+v", rep)
		}
	}
	if d.Rounds() != 3 {
		t.Fatalf("rounds %d", d.Rounds())
	}
}

func TestDecHWWithoutSelfHessian(t *testing.T) {
	d, _ := NewDecHW(DefaultDecHWConfig())
	self, n := dechwCase()
	self.Hessian = nil
	self.DataSize, n.DataSize = 0, 0 // nobody reports data: uniform weights
	out := make([]float32, 3)
	rep, err := d.Aggregate(self, []Contribution{n}, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 2, 15, 6)
	if rep.Hessian || rep.Used != 2 {
		t.Fatalf("report %+v", rep)
	}
}

func TestDecHWConfigValidate(t *testing.T) {
	for _, c := range []DecHWConfig{{Beta: 1.5}, {Beta: -0.1}, {Beta: math.NaN()}, {Beta: 1, Theta: -1}} {
		if _, err := NewDecHW(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: err %v, want ErrConfig", c, err)
		}
	}
}

func TestDecHWNoAllocations(t *testing.T) {
	const n, k = 1300, 10
	self := Contribution{From: id(0), Arch: "a", Params: make([]float32, n), Hessian: make([]float32, n), DataSize: 1}
	others := make([]Contribution, k)
	for j := range others {
		others[j] = self
		others[j].From = id(byte(j + 1))
	}
	d, _ := NewDecHW(DefaultDecHWConfig())
	out := make([]float32, n)
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := d.Aggregate(self, others, out); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per call", allocs)
	}
}
