package aggregate

import (
	"math/rand/v2"
	"testing"
)

// benchInputs: 10 neighbours with 250k-parameter models and Hessians.
func benchInputs() (Contribution, []Contribution, []float32) {
	const n, k = 250_000, 10
	mk := func(b byte) Contribution {
		c := Contribution{From: id(b), Arch: "a", Params: make([]float32, n), Hessian: make([]float32, n), DataSize: int(b) + 1, Period: 3, DataConf: 1}
		for i := range c.Params {
			c.Params[i], c.Hessian[i] = float32(i%7), float32(i%3)
		}
		return c
	}
	others := make([]Contribution, k)
	for j := range others {
		others[j] = mk(byte(j + 1))
	}
	return mk(0), others, make([]float32, n)
}

func BenchmarkDecAvg250k(b *testing.B) {
	self, others, out := benchInputs()
	b.SetBytes(int64(4 * len(out) * (len(others) + 1)))
	for b.Loop() {
		if _, err := (DecAvg{}).Aggregate(self, others, out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecHW250k(b *testing.B) {
	self, others, out := benchInputs()
	d, _ := NewDecHW(DefaultDecHWConfig())
	b.SetBytes(int64(8 * len(out) * (len(others) + 1)))
	for b.Loop() {
		if _, err := d.Aggregate(self, others, out); err != nil {
			b.Fatal(err)
		}
	}
}

// robustInputs: 8 neighbours (a FedLay neighbourhood) with
// 250k-parameter models that differ from ours by seeded noise 1.5 times
// our own step's (Origin: our training start), the ratio of the
// closest third's distance to our own step in the attack lab without
// attack (median 1.48).
func robustInputs() (Contribution, []Contribution, []float32) {
	const n, k = 250_000, 8
	rng := rand.New(rand.NewPCG(26, 8))
	base := make([]float32, n)
	for i := range base {
		base[i] = float32(rng.NormFloat64())
	}
	mk := func(b byte, spread float64) Contribution {
		c := Contribution{From: id(b), Arch: "a", Params: make([]float32, n), DataSize: 100, Period: 1, DataConf: 1}
		for i, v := range base {
			c.Params[i] = v + float32(spread*rng.NormFloat64())
		}
		return c
	}
	self := mk(0, 0)
	self.Origin = mk(0, 0.01).Params
	others := make([]Contribution, k)
	for j := range others {
		others[j] = mk(byte(j+1), 0.015)
	}
	return self, others, make([]float32, n)
}

// BenchmarkRobustFedLay250k times the default rule, clipped-fedlay,
// against the same rule without its coordinate radius
// (ablate-coord-fedlay, the default before issue #26's backdoor
// defence): the radius's price per aggregation (bench-go's
// robust_coord_vs_l2).
func BenchmarkRobustFedLay250k(b *testing.B) {
	for _, name := range []string{"ablate-coord-fedlay", "clipped-fedlay"} {
		b.Run("rule="+name, func(b *testing.B) {
			a, err := New(name)
			if err != nil {
				b.Fatal(err)
			}
			self, others, out := robustInputs()
			b.SetBytes(int64(4 * len(out) * (len(others) + 1)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.Aggregate(self, others, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
