package methodsim

import (
	"fmt"
	"math"
	"sort"
)

// Ratios compare a method with the best of several baselines, metric by
// metric, as the Plexus paper reports them: for each of time-,
// communication- and resources-to-accuracy, the baseline that needed the
// least divided by the method's own cost (> 1: the method is better).
type Ratios struct {
	// TTA, Comm and Res are the ratios; NaN when no baseline reached the
	// target, +Inf when the method's own cost is zero.
	TTA, Comm, Res float64
	// TTAFrom, CommFrom and ResFrom name the best baseline per metric.
	TTAFrom, CommFrom, ResFrom string
}

// Compare returns the ratios of the best baseline cost to the method's
// cost. baselines holds only the baselines that reached the target.
func Compare(method Cost, baselines map[string]Cost) Ratios {
	r := Ratios{TTA: math.NaN(), Comm: math.NaN(), Res: math.NaN()}
	names := make([]string, 0, len(baselines))
	for n := range baselines {
		names = append(names, n)
	}
	sort.Strings(names) // ties go to the first name
	best := func(get func(Cost) float64) (float64, string) {
		v, from := math.Inf(1), ""
		for _, n := range names {
			if x := get(baselines[n]); x < v {
				v, from = x, n
			}
		}
		return v, from
	}
	ratio := func(b, m float64) float64 {
		if m <= 0 {
			return math.Inf(1)
		}
		return b / m
	}
	if len(names) == 0 {
		return r
	}
	var b float64
	b, r.TTAFrom = best(func(c Cost) float64 { return float64(c.Time) })
	r.TTA = ratio(b, float64(method.Time))
	b, r.CommFrom = best(func(c Cost) float64 { return c.Bytes })
	r.Comm = ratio(b, method.Bytes)
	b, r.ResFrom = best(func(c Cost) float64 { return float64(c.TrainTime) })
	r.Res = ratio(b, float64(method.TrainTime))
	return r
}

// String prints the ratios with the baseline each is taken against.
func (r Ratios) String() string {
	return fmt.Sprintf("time %.2fx (vs %s), communication %.1fx (vs %s), resources %.1fx (vs %s)",
		r.TTA, r.TTAFrom, r.Comm, r.CommFrom, r.Res, r.ResFrom)
}
