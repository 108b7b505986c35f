package aggregate

import (
	"fmt"
	"math"
)

// stackN sizes the stack buffers for per-contributor scratch (accepted
// indices and weights): neighbourhoods up to this size allocate nothing.
const stackN = 32

// rule is an aggregator's own test of one contribution, run after the
// shared checks.
type rule func(c Contribution) error

// screen runs the shared validation. It checks out and self (an error
// wraps ErrInvalidSelf or is ErrOutLength), then appends to idx the index
// of every acceptable contribution in others and records the rest in
// rep.Refused. rule may be nil.
func screen(self *Contribution, others []Contribution, out []float32, r rule, idx []int, rep *Report) ([]int, error) {
	if err := checkParams(self.Params); err != nil {
		return idx, fmt.Errorf("%w: %w", ErrInvalidSelf, err)
	}
	if r != nil {
		if err := r(*self); err != nil {
			return idx, fmt.Errorf("%w: %w", ErrInvalidSelf, err)
		}
	}
	if len(out) != len(self.Params) {
		return idx, fmt.Errorf("%w: out %d, self %d", ErrOutLength, len(out), len(self.Params))
	}
	for j := range others {
		c := &others[j]
		err := checkOther(self, c, others, idx)
		if err == nil && r != nil {
			err = r(*c)
		}
		if err != nil {
			rep.Refused = append(rep.Refused, Refusal{Index: j, From: c.From, Err: err})
			continue
		}
		idx = append(idx, j)
	}
	return idx, nil
}

// checkOther applies the shared checks to c against self and the others
// accepted so far (whose indices are in idx).
func checkOther(self, c *Contribution, others []Contribution, idx []int) error {
	if c.Arch != self.Arch {
		return fmt.Errorf("%w: %q, want %q", ErrArch, c.Arch, self.Arch)
	}
	if len(c.Params) != len(self.Params) {
		return fmt.Errorf("%w: %d, want %d", ErrLength, len(c.Params), len(self.Params))
	}
	if c.From == self.From {
		return fmt.Errorf("%w: %v is self", ErrDuplicate, c.From)
	}
	for _, k := range idx {
		if others[k].From == c.From {
			return fmt.Errorf("%w: %v already at index %d", ErrDuplicate, c.From, k)
		}
	}
	return checkParams(c.Params)
}

// checkParams rejects an empty or non-finite parameter vector.
func checkParams(params []float32) error {
	if len(params) == 0 {
		return ErrEmpty
	}
	if i := nonFinite(params); i >= 0 {
		return fmt.Errorf("%w: parameter %d is %v", ErrNonFinite, i, params[i])
	}
	return nil
}

// checkHessian rejects a Hessian diagonal that is missing, of another
// length than params, or has non-finite or negative entries.
func checkHessian(params, hessian []float32) error {
	if hessian == nil {
		return fmt.Errorf("%w: missing", ErrHessian)
	}
	if len(hessian) != len(params) {
		return fmt.Errorf("%w: length %d, want %d", ErrHessian, len(hessian), len(params))
	}
	for i, h := range hessian {
		if !(h >= 0) || math.IsInf(float64(h), 1) {
			return fmt.Errorf("%w: entry %d is %v", ErrHessian, i, h)
		}
	}
	return nil
}

// nonFinite returns the index of the first NaN or infinity in v, or -1.
func nonFinite(v []float32) int {
	const exp = 0x7f800000 // all exponent bits set: Inf or NaN
	for i, x := range v {
		if math.Float32bits(x)&exp == exp {
			return i
		}
	}
	return -1
}

// dataSizeRule refuses a negative DataSize.
func dataSizeRule(c Contribution) error {
	if c.DataSize < 0 {
		return fmt.Errorf("%w: %d", ErrDataSize, c.DataSize)
	}
	return nil
}
