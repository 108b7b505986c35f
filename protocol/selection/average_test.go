package selection

import (
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

func contrib(b byte, params ...float32) aggregate.Contribution {
	return aggregate.Contribution{From: id(b), Arch: "m", Params: params}
}

func near(t *testing.T, got []float32, want ...float32) {
	t.Helper()
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestAverage(t *testing.T) {
	s := contrib(0, 4, 0)
	others := []aggregate.Contribution{contrib(1, 0, 8), contrib(2, 8, 8), contrib(3, 100, 100)}
	out := make([]float32, 2)
	// 0.5*(4,0) + 0.25*(0,8) + 0.25*(8,8) = (4, 4); peer 3 has weight 0.
	rep, err := Average(s, others, []float64{0.5, 0.25, 0.25, 0}, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 4, 4)
	if rep.Used != 3 || rep.Refused != nil {
		t.Fatalf("report %+v", rep)
	}
	// Unnormalised weights are fine; a bad model is refused with its index
	// in others and the rest renormalised: (1*(4,0) + 1*(8,8)) / 2.
	bad := contrib(1, float32(math.NaN()), 0)
	rep, err = Average(s, []aggregate.Contribution{bad, contrib(2, 8, 8)}, []float64{2, 2, 2}, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 6, 4)
	if len(rep.Refused) != 1 || rep.Refused[0].Index != 0 || !errors.Is(rep.Refused[0].Err, aggregate.ErrNonFinite) {
		t.Fatalf("report %+v", rep)
	}
	// Self weight 0: the others' mean, in place.
	rep, err = Average(s, others[:2], []float64{0, 1, 3}, s.Params)
	if err != nil {
		t.Fatal(err)
	}
	near(t, s.Params, 6, 8)
	for _, w := range [][]float64{{1}, {0, 0, 0, 0}, {1, -1, 1, 1}, {1, math.Inf(1), 1, 1}} {
		if _, err := Average(s, others, w, out); !errors.Is(err, ErrWeights) {
			t.Errorf("weights %v: %v", w, err)
		}
	}
}
