package attack

import (
	"math"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// MaxGamma bounds the search, in units of the direction's length (the
// honest median distance): a rule that accepts everything (a plain one)
// gets a model that far out.
const MaxGamma = 100

// Steps is the bisection's number of halvings (gamma to within
// gmax / 2^Steps).
const Steps = 16

// Search returns, per slot, centre(slot) + gamma * dir(slot) for the
// largest gamma in [0, gmax] with which rule uses every slot's model at
// full weight: none refused, left out, or reported with a severity above
// tol (the reputation's tolerance), every slot sending its model at once
// (colluding), and that gamma. nb is the simulated neighbourhood of self
// (only the slots are replaced). rule must be one the caller may run
// many times (a fresh DecHW state is the caller's concern).
func Search(rule aggregate.Aggregator, tol float64, self aggregate.Contribution, nb []aggregate.Contribution, slots []int, gmax float64,
	centre, dir func(slot int) []float32) (map[int][]float32, float64) {
	trial := slices.Clone(nb)
	bufs := map[int][]float32{}
	for _, s := range slots {
		bufs[s] = make([]float32, len(self.Params))
	}
	out := make([]float32, len(self.Params))
	place := func(g float64) {
		for _, s := range slots {
			c, d, m := centre(s), dir(s), bufs[s]
			for i := range m {
				m[i] = float32(float64(c[i]) + g*float64(d[i]))
			}
			trial[s].Params = m
		}
	}
	accepted := func(g float64) bool {
		place(g)
		rep, err := rule.Aggregate(self, trial, out)
		if err != nil {
			return false
		}
		for _, f := range rep.Refused {
			if slices.Contains(slots, f.Index) {
				return false
			}
		}
		for _, o := range rep.Outliers {
			if slices.Contains(slots, o.Index) && (o.Action == aggregate.OutlierLeftOut || o.Severity > tol) {
				return false
			}
		}
		return true
	}
	lo, hi := 0.0, gmax
	if accepted(hi) {
		lo = hi
	} else {
		for range Steps {
			if mid := (lo + hi) / 2; accepted(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
	}
	place(lo)
	res := make(map[int][]float32, len(slots))
	for _, s := range slots {
		res[s] = slices.Clone(bufs[s])
	}
	return res, lo
}

// MedianDistance is the median distance from self of the contributions
// in nb that are not slots (0 when there is none).
func MedianDistance(self []float32, nb []aggregate.Contribution, slots []int) float64 {
	var ds []float64
	for k := range nb {
		if slices.Contains(slots, k) {
			continue
		}
		var ss float64
		for i, v := range self {
			d := float64(nb[k].Params[i]) - float64(v)
			ss += d * d
		}
		ds = append(ds, math.Sqrt(ss))
	}
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[(len(ds)-1)/2]
}

// ScaleTo scales v in place to L2 length n and reports whether it could
// (v and n non-zero and finite).
func ScaleTo(v []float32, n float64) bool {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if !(ss > 0) || !(n > 0) || math.IsInf(ss, 0) {
		return false
	}
	f := n / math.Sqrt(ss)
	for i := range v {
		v[i] = float32(float64(v[i]) * f)
	}
	return true
}
