package aggregate

import (
	"errors"
	"math"
	"testing"
)

func TestMean(t *testing.T) {
	self := contrib(1, 0, 1, 2, 3)
	others := []Contribution{contrib(2, 0, 3, 4, 5), contrib(3, 0, 5, 6, 7)}
	out := make([]float32, 3)
	rep, err := Mean{}.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 3, 4, 5)
	if rep.Used != 3 || rep.Refused != nil {
		t.Fatalf("report %+v", rep)
	}
}

func TestMeanInPlaceAcrossBlocks(t *testing.T) {
	// 1300 parameters span three blocks; out is self.Params itself.
	n := 2*block + 276
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i), float32(3*i)
	}
	self := Contribution{From: id(1), Arch: "x", Params: a}
	if _, err := (Mean{}).Aggregate(self, []Contribution{{From: id(2), Arch: "x", Params: b}}, a); err != nil {
		t.Fatal(err)
	}
	for i, v := range a {
		if v != float32(2*i) {
			t.Fatalf("a[%d] = %v, want %d", i, v, 2*i)
		}
	}
}

func TestDecAvgWeightsAndRefusals(t *testing.T) {
	self := contrib(1, 1, 0, 4)
	nan := contrib(3, 1, float32(math.NaN()), 0)
	inf := contrib(4, 1, 0, float32(math.Inf(-1)))
	arch := contrib(5, 1, 1, 1)
	arch.Arch = "cnn"
	others := []Contribution{
		contrib(2, 3, 4, 0), // used: out = (1*[0,4] + 3*[4,0]) / 4 = [3, 1]
		nan,
		inf,
		arch,
		contrib(6, 1, 1, 2, 3), // wrong length
		contrib(2, 5, 9, 9),    // second from peer 2
		contrib(1, 5, 9, 9),    // claims to be self
		contrib(7, -1, 9, 9),   // negative data size
		contrib(8, 1),          // empty
	}
	want := []error{ErrNonFinite, ErrNonFinite, ErrArch, ErrLength, ErrDuplicate, ErrDuplicate, ErrDataSize, ErrLength}
	out := make([]float32, 2)
	rep, err := DecAvg{}.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 3, 1)
	if rep.Used != 2 || len(rep.Refused) != len(want) {
		t.Fatalf("report %+v", rep)
	}
	for k, r := range rep.Refused {
		if r.Index != k+1 || r.From != others[k+1].From || !errors.Is(r.Err, want[k]) {
			t.Errorf("refusal %d = %+v, want index %d reason %v", k, r, k+1, want[k])
		}
	}
}

func TestSelfAndOutErrors(t *testing.T) {
	good := contrib(2, 1, 1, 1)
	cases := []struct {
		name string
		self Contribution
		out  int
		want []error
	}{
		{"nan self", contrib(1, 1, float32(math.NaN()), 1), 2, []error{ErrInvalidSelf, ErrNonFinite}},
		{"empty self", contrib(1, 1), 0, []error{ErrInvalidSelf, ErrEmpty}},
		{"negative size", contrib(1, -2, 1, 1), 2, []error{ErrInvalidSelf, ErrDataSize}},
		{"short out", contrib(1, 1, 1, 1), 1, []error{ErrOutLength}},
		{"zero weights", contrib(1, 0, 1, 1), 2, []error{ErrZeroWeight}},
	}
	for _, c := range cases {
		out := []float32{7, 7}[:c.out]
		others := []Contribution{good}
		if c.name == "zero weights" {
			others[0].DataSize = 0
		}
		_, err := DecAvg{}.Aggregate(c.self, others, out)
		for _, w := range c.want {
			if !errors.Is(err, w) {
				t.Errorf("%s: err %v, want %v", c.name, err, w)
			}
		}
		for _, v := range out {
			if v != 7 {
				t.Errorf("%s: out modified: %v", c.name, out)
			}
		}
	}
}

func TestFedAvgExcludesServerModel(t *testing.T) {
	server := contrib(0, 0, 9, 9)
	clients := []Contribution{contrib(1, 1, 0, 0), contrib(2, 3, 4, 8)}
	out := make([]float32, 2)
	rep, err := FedAvg{}.Aggregate(server, clients, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 3, 6) // (1*[0,0] + 3*[4,8]) / 4
	if rep.Used != 2 {
		t.Fatalf("used %d, want 2", rep.Used)
	}
	rep, err = FedAvg{}.Aggregate(server, nil, out)
	if err != nil || rep.Used != 0 {
		t.Fatalf("no clients: %+v %v", rep, err)
	}
	near(t, out, 9, 9)
}

func TestNoAllocations(t *testing.T) {
	const n, k = 1000, 10
	self := Contribution{From: id(0), Arch: "a", Params: make([]float32, n), DataSize: 1, Period: 3, DataConf: 1}
	others := make([]Contribution, k)
	for j := range others {
		others[j] = self
		others[j].From = id(byte(j + 1))
		others[j].Params = make([]float32, n)
	}
	out := make([]float32, n)
	for _, a := range []Aggregator{Mean{}, DecAvg{}, FedAvg{}, FedLay{Config: DefaultFedLayConfig()}} {
		allocs := testing.AllocsPerRun(5, func() {
			if _, err := a.Aggregate(self, others, out); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%T: %v allocations per call", a, allocs)
		}
	}
}

func TestNew(t *testing.T) {
	for _, name := range Names() {
		a, err := New(name)
		if err != nil || a == nil {
			t.Errorf("New(%q) = %v, %v", name, a, err)
		}
	}
	if _, err := New("krum"); !errors.Is(err, ErrUnknown) {
		t.Errorf("New(krum) err %v, want ErrUnknown", err)
	}
}
