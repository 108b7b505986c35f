package aggregate

import "testing"

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
