package aggregate

import (
	"fmt"
	"math"
)

// FedLayConfig holds the two constants that balance FedLay's confidence.
type FedLayConfig struct {
	// DataWeight is a_d, the weight of the data confidence c_d/max c_d.
	// The paper uses 0.5 and finds other mixes converge as well.
	DataWeight float64
	// CommWeight is a_c, the weight of the communication confidence
	// c_c/max c_c (c_c = 1/T). The paper uses 0.5.
	CommWeight float64
}

// DefaultFedLayConfig returns a_d = a_c = 0.5, the paper's values.
func DefaultFedLayConfig() FedLayConfig {
	return FedLayConfig{
		DataWeight: 0.5, // a_d: half the confidence from label balance
		CommWeight: 0.5, // a_c: half from exchange frequency
	}
}

// Validate requires finite, non-negative weights with a positive sum.
func (c FedLayConfig) Validate() error {
	ok := func(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }
	if !ok(c.DataWeight) || !ok(c.CommWeight) || c.DataWeight+c.CommWeight == 0 {
		return fmt.Errorf("%w: FedLay weights a_d=%v a_c=%v", ErrConfig, c.DataWeight, c.CommWeight)
	}
	return nil
}

// FedLay aggregates with FedLay's confidence weights (Sec. III-C):
// w_u = sum_{j in N u {u}} c^j w_j / sum_j c^j, where c^j comes from
// Confidence with the maxima taken over the accepted closed
// neighbourhood. A contribution with DataConf outside (0, 1] or a
// non-positive Period is refused (ErrConfidence).
type FedLay struct {
	Config FedLayConfig
}

// NewFedLay validates cfg and returns the aggregator.
func NewFedLay(cfg FedLayConfig) (FedLay, error) {
	if err := cfg.Validate(); err != nil {
		return FedLay{}, err
	}
	return FedLay{Config: cfg}, nil
}

// Aggregate implements Aggregator.
func (f FedLay) Aggregate(self Contribution, others []Contribution, out []float32) (Report, error) {
	if err := f.Config.Validate(); err != nil {
		return Report{}, err
	}
	var rep Report
	var ib [stackN]int
	idx, err := screen(&self, others, out, confidenceRule, ib[:0], &rep)
	if err != nil {
		return Report{}, err
	}
	var wb [stackN + 1]float64
	w := f.confidences(&self, others, idx, wb[:0])
	if !normalise(w) {
		return rep, ErrZeroWeight
	}
	mix(out, self.Params, others, idx, w)
	rep.Used = len(idx) + 1
	return rep, nil
}

// Weights writes the normalised FedLay weights of self and others (in
// that order, refused contributions omitted) into dst and returns it; for
// logging and tests. It applies the same validation as Aggregate.
func (f FedLay) Weights(self Contribution, others []Contribution, dst []float64) ([]float64, Report, error) {
	var rep Report
	idx, err := screen(&self, others, self.Params, confidenceRule, nil, &rep)
	if err != nil {
		return dst, rep, err
	}
	start := len(dst)
	dst = f.confidences(&self, others, idx, dst)
	if !normalise(dst[start:]) {
		return dst, rep, ErrZeroWeight
	}
	rep.Used = len(idx) + 1
	return dst, rep, nil
}

// confidences appends to w the unnormalised confidence of self and of
// others[idx[k]], the maxima taken over that closed neighbourhood.
func (f FedLay) confidences(self *Contribution, others []Contribution, idx []int, w []float64) []float64 {
	maxCd, minT := self.DataConf, self.Period
	for _, j := range idx {
		maxCd = max(maxCd, others[j].DataConf)
		minT = min(minT, others[j].Period)
	}
	w = append(w, f.Config.Confidence(self.DataConf, maxCd, self.Period, minT))
	for _, j := range idx {
		w = append(w, f.Config.Confidence(others[j].DataConf, maxCd, others[j].Period, minT))
	}
	return w
}

// confidenceRule refuses inputs FedLay's confidence is not defined for.
func confidenceRule(c Contribution) error {
	if !(c.DataConf > 0 && c.DataConf <= 1) {
		return fmt.Errorf("%w: data confidence %v not in (0,1]", ErrConfidence, c.DataConf)
	}
	if c.Period <= 0 {
		return fmt.Errorf("%w: period %d", ErrConfidence, c.Period)
	}
	return nil
}
