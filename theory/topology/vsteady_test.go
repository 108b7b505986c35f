package topology

import (
	"errors"
	"math"
	"testing"
)

func TestVSteadyStar(t *testing.T) {
	star, _ := NewGraph(4)
	for v := 1; v < 4; v++ {
		star.AddEdge(0, v)
	}
	v, err := VSteady(star)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.4, 0.2, 0.2, 0.2} // (d+1) = 4, 2, 2, 2 over 10
	for i := range want {
		if !near(v[i], want[i], 1e-15) {
			t.Fatalf("v_steady = %v, want %v", v, want)
		}
	}
	if nrm, _ := VSteadyNorm(star); !near(nrm, math.Sqrt(0.28), 1e-15) {
		t.Errorf("‖v‖ = %v, want √0.28", nrm)
	}
}

func TestVSteadyNormRegularIsInvSqrtN(t *testing.T) {
	for _, n := range []int{10, 64, 301} {
		g, _ := Ring(n)
		if nrm, _ := VSteadyNorm(g); !near(nrm, 1/math.Sqrt(float64(n)), 1e-14) {
			t.Errorf("ring %d: ‖v‖ = %v, want 1/√n", n, nrm)
		}
	}
	g, _ := RandomRegular(100, 6, seeded(31))
	if nrm, _ := VSteadyNorm(g); !near(nrm, 0.1, 1e-14) {
		t.Errorf("6-regular, n = 100: ‖v‖ = %v, want 0.1", nrm)
	}
}

// Power iteration on A' must land on the closed form (d+1)/Σ(d+1), and
// that vector must be fixed by A'.
func TestStationaryVectorMatchesDegreePlusOne(t *testing.T) {
	ba, _ := BarabasiAlbert(150, 2, seeded(32))
	er, _ := ErdosRenyi(150, 0.04, seeded(33))
	pl, _ := PowerLawConfiguration(300, 2.5, seeded(34))
	for name, g := range map[string]*Graph{"BA": ba, "ER giant": er.LargestComponent(), "power-law giant": pl.LargestComponent()} {
		want, err := VSteady(g)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := StationaryVector(g, 1e-13, 100000)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range want {
			if !near(got[i], want[i], 1e-10) {
				t.Fatalf("%s: node %d (degree %d): power iteration %v, closed form %v", name, i, g.Degree(i), got[i], want[i])
			}
		}
		// (A' v)_i = Σ_{j ∈ N(i) ∪ {i}} v_j/(d_j+1) must equal v_i.
		for i := range want {
			s := want[i] / float64(g.Degree(i)+1)
			for _, j := range g.Neighbors(i) {
				s += want[j] / float64(g.Degree(j)+1)
			}
			if !near(s, want[i], 1e-15) {
				t.Fatalf("%s: (A'v)_%d = %v, v_%d = %v", name, i, s, i, want[i])
			}
		}
	}
}

func TestVSteadyErrors(t *testing.T) {
	g := twoTriangles(t)
	if _, err := VSteady(g); !errors.Is(err, ErrDisconnected) {
		t.Errorf("VSteady error = %v, want ErrDisconnected", err)
	}
	if _, err := StationaryVector(g, 1e-9, 100); !errors.Is(err, ErrDisconnected) {
		t.Errorf("StationaryVector error = %v, want ErrDisconnected", err)
	}
	ring, _ := Ring(200)
	if _, err := StationaryVector(ring, 1e-300, 3); !errors.Is(err, ErrNotConverged) {
		t.Errorf("3 iterations error = %v, want ErrNotConverged", err)
	}
	for _, tol := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := StationaryVector(ring, tol, 10); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("tol = %v error = %v", tol, err)
		}
	}
	if _, err := StationaryVector(ring, 1e-9, 0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("maxIter = 0 error = %v", err)
	}
}
