package aggregate

// block is the number of parameters combined at a time: the accumulators
// for one block live on the stack and stay in L1.
const block = 512

// mix writes out[i] = w[0]*self[i] + sum_k w[k+1]*others[idx[k]].Params[i],
// accumulating in float64. Each block is read completely before it is
// written, so out may alias any input. Zero weights are skipped.
func mix(out, self []float32, others []Contribution, idx []int, w []float64) {
	var acc [block]float64
	for lo := 0; lo < len(out); lo += block {
		hi := min(lo+block, len(out))
		a := acc[:hi-lo]
		clear(a)
		if w[0] != 0 {
			axpy64(a, w[0], self[lo:hi])
		}
		for k, j := range idx {
			if w[k+1] != 0 {
				axpy64(a, w[k+1], others[j].Params[lo:hi])
			}
		}
		o := out[lo:hi]
		for i := range o {
			o[i] = float32(a[i])
		}
	}
}

// axpy64 computes a += w*x; x must be at least as long as a.
func axpy64(a []float64, w float64, x []float32) {
	x = x[:len(a)]
	for i, v := range x {
		a[i] += w * float64(v)
	}
}

// normalise divides w by its sum; it returns false when the sum is zero.
func normalise(w []float64) bool {
	var s float64
	for _, v := range w {
		s += v
	}
	if s == 0 {
		return false
	}
	for i := range w {
		w[i] /= s
	}
	return true
}

// scalarMean is the common path of the scalar-weight aggregators: screen,
// weigh (weight returns a contribution's unnormalised weight), normalise,
// mix. withSelf false leaves self out of the mean (FedAvg); with no
// accepted others out then becomes a copy of self.
func scalarMean(self Contribution, others []Contribution, out []float32, r rule, weight func(Contribution) float64, withSelf bool) (Report, error) {
	var rep Report
	var ib [stackN]int
	idx, err := screen(&self, others, out, r, ib[:0], &rep)
	if err != nil {
		return Report{}, err
	}
	var wb [stackN + 1]float64
	w := append(wb[:0], 0)
	if withSelf {
		w[0] = weight(self)
	}
	for _, j := range idx {
		w = append(w, weight(others[j]))
	}
	if !withSelf && len(idx) == 0 {
		copy(out, self.Params)
		return rep, nil
	}
	if !normalise(w) {
		return rep, ErrZeroWeight
	}
	mix(out, self.Params, others, idx, w)
	rep.Used = len(idx)
	if withSelf {
		rep.Used++
	}
	return rep, nil
}
