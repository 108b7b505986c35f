package aggregate

import (
	"fmt"
	"math"
)

// DecHWConfig configures DecHW.
type DecHWConfig struct {
	// Beta is beta of Eq. 5, in [0, 1]: the factor applied to each new
	// normalised Hessian diagonal before it is added to the accumulator.
	// The paper's experiments use 1 (recent updates fully incorporated).
	Beta float64
	// Theta is the number of rounds (Aggregate calls) in which Hessian
	// weights are used, and so in which Hessians need to be exchanged;
	// later rounds use data-size weights only. 0 means every round (the
	// paper's unrestricted DecHW; Sec. V-B finds theta = 30 of 1,000
	// rounds as good).
	Theta int
}

// DefaultDecHWConfig returns beta = 1 and theta = 0 (always), the setting
// of the paper's main tables.
func DefaultDecHWConfig() DecHWConfig {
	return DecHWConfig{
		Beta:  1, // accumulate each round's normalised diagonal in full
		Theta: 0, // use Hessian weights in every round
	}
}

// Validate requires beta in [0, 1] and theta >= 0.
func (c DecHWConfig) Validate() error {
	if !(c.Beta >= 0 && c.Beta <= 1) {
		return fmt.Errorf("%w: DecHW beta %v not in [0,1]", ErrConfig, c.Beta)
	}
	if c.Theta < 0 {
		return fmt.Errorf("%w: DecHW theta %d is negative", ErrConfig, c.Theta)
	}
	return nil
}

// DecHW is Decentralized Hessian-Weighted aggregation (Algorithm 1 of the
// DecHW paper) for one peer. It holds that peer's state: the accumulated
// normalised Hessian diagonal H^ (Eq. 5) and the number of rounds done.
//
// Each round the peer (1) aggregates: for every parameter n,
// w_n = sum_j H^_{j,n} w_{j,n} / sum_j H^_{j,n} over the closed
// neighbourhood (Eqs. 6-7), or, where sum_j H^_{j,n} = 0, the data-size
// mean sum_j tau_j w_{j,n} with tau_j = |D_j| / sum_k |D_k| (uniform when
// no one reports data); (2) trains; (3) calls Observe with its new raw
// Hessian diagonal; (4) sends its model with Accumulated().
//
// Hessian weighting applies while UseHessian() is true and self carries a
// Hessian; then every neighbour must carry a valid one (same length,
// finite, non-negative) or is refused with ErrHessian. In other rounds the
// Hessians are ignored and the data-size mean is used throughout.
type DecHW struct {
	cfg    DecHWConfig
	acc    []float32
	rounds int
}

// NewDecHW validates cfg and returns a peer's DecHW state.
func NewDecHW(cfg DecHWConfig) (*DecHW, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &DecHW{cfg: cfg}, nil
}

// Observe folds the peer's newly computed raw Hessian diagonal h into the
// accumulator: H^ = h/||h||_2 the first time (Algorithm 1, line 3), then
// H^ += beta h/||h||_2 (Eq. 5). An all-zero h adds nothing. h must be
// finite, non-negative (a Gauss-Newton diagonal) and of a fixed length.
func (d *DecHW) Observe(h []float32) error {
	if len(h) == 0 {
		return fmt.Errorf("%w: empty diagonal", ErrHessian)
	}
	if d.acc != nil && len(h) != len(d.acc) {
		return fmt.Errorf("%w: length %d, want %d", ErrHessian, len(h), len(d.acc))
	}
	if err := checkHessian(h, h); err != nil {
		return err
	}
	var ss float64
	for _, v := range h {
		ss += float64(v) * float64(v)
	}
	if ss == 0 {
		return nil
	}
	scale := d.cfg.Beta / math.Sqrt(ss)
	if d.acc == nil {
		d.acc = make([]float32, len(h))
		scale = 1 / math.Sqrt(ss)
	}
	for i, v := range h {
		d.acc[i] += float32(scale * float64(v))
	}
	return nil
}

// Accumulated returns H^, the diagonal to send with the model and to put
// in the peer's own Contribution; nil before the first non-zero Observe.
// The slice belongs to d and changes on Observe: copy it to keep it.
func (d *DecHW) Accumulated() []float32 { return d.acc }

// Rounds returns the number of successful Aggregate calls.
func (d *DecHW) Rounds() int { return d.rounds }

// UseHessian reports whether the next round uses Hessian weights (and so
// whether Hessians are worth computing and exchanging): theta is 0 or
// fewer than theta rounds are done.
func (d *DecHW) UseHessian() bool { return d.cfg.Theta == 0 || d.rounds < d.cfg.Theta }

// Aggregate implements Aggregator; see DecHW. A successful call counts
// one round.
func (d *DecHW) Aggregate(self Contribution, others []Contribution, out []float32) (Report, error) {
	hess := d.UseHessian() && self.Hessian != nil
	r := dataSizeRule
	if hess {
		r = hessianRule
	}
	var rep Report
	var ib [stackN]int
	idx, err := screen(&self, others, out, r, ib[:0], &rep)
	if err != nil {
		return rep, err
	}
	var tb [stackN + 1]float64
	tau := append(tb[:0], dataWeight(self))
	for _, j := range idx {
		tau = append(tau, dataWeight(others[j]))
	}
	if !normalise(tau) {
		for i := range tau {
			tau[i] = 1 / float64(len(tau))
		}
	}
	if hess {
		rep.Fallback = hessianMix(out, &self, others, idx, tau)
		rep.Hessian = true
	} else {
		mix(out, self.Params, others, idx, tau)
	}
	rep.Used = len(idx) + 1
	d.rounds++
	return rep, nil
}

// hessianRule is DecHW's rule in Hessian rounds.
func hessianRule(c Contribution) error {
	if err := dataSizeRule(c); err != nil {
		return err
	}
	return checkHessian(c.Params, c.Hessian)
}

// hessianMix writes the per-parameter Hessian-weighted mean of self and
// others[idx[k]] into out, using the data-size weights tau (self first)
// where all Hessian entries are zero, and returns how many parameters
// fell back. Blocks are read before written, so out may alias inputs.
func hessianMix(out []float32, self *Contribution, others []Contribution, idx []int, tau []float64) (fallback int) {
	var num, den, fb [block]float64
	for lo := 0; lo < len(out); lo += block {
		hi := min(lo+block, len(out))
		nu, de, f := num[:hi-lo], den[:hi-lo], fb[:hi-lo]
		clear(nu)
		clear(de)
		clear(f)
		hessianAcc(nu, de, f, tau[0], self.Params[lo:hi], self.Hessian[lo:hi])
		for k, j := range idx {
			c := &others[j]
			hessianAcc(nu, de, f, tau[k+1], c.Params[lo:hi], c.Hessian[lo:hi])
		}
		o := out[lo:hi]
		for i := range o {
			if de[i] != 0 {
				o[i] = float32(nu[i] / de[i])
			} else {
				o[i] = float32(f[i])
				fallback++
			}
		}
	}
	return fallback
}

// hessianAcc adds one contributor's terms: num += h*w, den += h,
// fb += tau*w. All slices are as long as num.
func hessianAcc(num, den, fb []float64, tau float64, w, h []float32) {
	den = den[:len(num)]
	fb = fb[:len(num)]
	w = w[:len(num)]
	h = h[:len(num)]
	for i := range num {
		hv, wv := float64(h[i]), float64(w[i])
		num[i] += hv * wv
		den[i] += hv
		fb[i] += tau * wv
	}
}
