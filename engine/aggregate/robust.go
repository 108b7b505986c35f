package aggregate

// Robust makes a weighted rule (Mean, DecAvg, FedLay, DecHW) safe to run
// among untrusted neighbours. Each call it
//
//  1. screens the contributions with the shared checks,
//  2. bounds the accepted neighbours' claims (Bounds: DataSize, Period,
//     DataConf, Hessian), so no claim can raise a weight beyond a fixed
//     multiple of an honest one,
//  3. clips each accepted neighbour's model to within tau of ours
//     (ClipConfig, ClippedGossip), so no model can pull ours further than
//     its weight times tau, and leaves out the ones beyond the radius or
//     pointing against our step or against the neighbours' consensus
//     (the direction and consensus checks), and
//  4. lets Inner weigh and mix the bounded, clipped copies.
//
// The caller's contributions are never modified: bounded claims and
// clipped parameters live in copies. The Report is Inner's with Bounded
// and the clipping Outliers added.
type Robust struct {
	Bounds Bounds
	Clip   ClipConfig
	Inner  Aggregator
}

// Aggregate implements Aggregator.
func (r Robust) Aggregate(self Contribution, others []Contribution, out []float32) (Report, error) {
	if err := r.Bounds.Validate(); err != nil {
		return Report{}, err
	}
	if err := r.Clip.Validate(); err != nil {
		return Report{}, err
	}
	var pre Report
	idx, err := screen(&self, others, out, nil, nil, &pre)
	if err != nil {
		return Report{}, err
	}
	work := append([]Contribution(nil), others...)
	bounded := r.Bounds.apply(&self, work, idx)
	var clipped Report
	rejected := r.Clip.clip(self, work, idx, &clipped)
	kept, orig := withoutRejected(work, rejected)
	r.Clip.coordClip(self, kept)
	wins := r.Clip.winsorise(self, kept)
	for i := range wins {
		wins[i].Index = orig[wins[i].Index]
	}
	clipped.Outliers = mergeOutliers(clipped.Outliers, wins)
	rep, err := r.Inner.Aggregate(self, kept, out)
	if err != nil {
		return rep, err
	}
	for i := range rep.Refused {
		rep.Refused[i].Index = orig[rep.Refused[i].Index]
	}
	for i := range rep.Outliers {
		rep.Outliers[i].Index = orig[rep.Outliers[i].Index]
	}
	rep.Bounded = bounded
	rep.Outliers = append(rep.Outliers, clipped.Outliers...)
	rep.Pulls = clipped.Pulls
	return rep, nil
}

// withoutRejected returns work without the rejected indices (ascending)
// and, for each kept position, its index in work. A rejected neighbour
// is left out of the inner rule entirely: replaced by our own model it
// would pull nothing but still take its weight from the honest ones.
func withoutRejected(work []Contribution, rejected []int) (kept []Contribution, orig []int) {
	kept, orig = make([]Contribution, 0, len(work)), make([]int, 0, len(work))
	r := 0
	for j := range work {
		if r < len(rejected) && rejected[r] == j {
			r++
			continue
		}
		kept, orig = append(kept, work[j]), append(orig, j)
	}
	return kept, orig
}

// Unwrap returns the inner rule.
func (r Robust) Unwrap() Aggregator { return r.Inner }

// RobustOf returns the Robust rule a (possibly wrapped) aggregator runs
// (a wrapper says what it wraps with Unwrap), and false where it runs
// none: what an attacker that knows the rule reads its checks from.
func RobustOf(a Aggregator) (Robust, bool) {
	for a != nil {
		switch v := a.(type) {
		case Robust:
			return v, true
		case interface{ Unwrap() Aggregator }:
			a = v.Unwrap()
		default:
			return Robust{}, false
		}
	}
	return Robust{}, false
}

// DecHWOf returns the DecHW state a (possibly wrapped) aggregator runs
// on, or nil: the peer needs it to feed Hessians (Observe) and to know
// whether to compute them (UseHessian).
func DecHWOf(a Aggregator) *DecHW {
	for a != nil {
		switch v := a.(type) {
		case *DecHW:
			return v
		case interface{ Unwrap() Aggregator }:
			a = v.Unwrap()
		default:
			return nil
		}
	}
	return nil
}
