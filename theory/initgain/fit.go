package initgain

import "math"

// FitScaling fits ‖v_steady‖ = C·n^(-α) to measured points (ns[i],
// norms[i]) by ordinary least squares of ln‖v‖ on ln n, as in Fig. 8 of
// the paper, and returns ScalingLaw{Alpha: α, Prefactor: C}. It needs at
// least two distinct n and positive, finite values.
func FitScaling(ns, norms []float64) (ScalingLaw, error) {
	if len(ns) != len(norms) || len(ns) < 2 {
		return ScalingLaw{}, errorf("fit of %d n values and %d norms, want >= 2 pairs", len(ns), len(norms))
	}
	var sx, sy float64
	for i := range ns {
		if !(ns[i] > 0) || !(norms[i] > 0) || math.IsInf(ns[i], 0) || math.IsInf(norms[i], 0) {
			return ScalingLaw{}, errorf("fit point %d: (n, norm) = (%v, %v)", i, ns[i], norms[i])
		}
		sx += math.Log(ns[i])
		sy += math.Log(norms[i])
	}
	m := float64(len(ns))
	mx, my := sx/m, sy/m
	var sxx, sxy float64
	for i := range ns {
		dx := math.Log(ns[i]) - mx
		sxx += dx * dx
		sxy += dx * (math.Log(norms[i]) - my)
	}
	if sxx == 0 {
		return ScalingLaw{}, errorf("fit needs two distinct n values")
	}
	slope := sxy / sxx
	return ScalingLaw{Alpha: -slope, Prefactor: math.Exp(my - slope*mx)}, nil
}
