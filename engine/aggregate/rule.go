package aggregate

import (
	"fmt"
	"slices"
)

// Rule is an aggregator's name parsed once: the weighted rule underneath
// and whether it is wrapped in Robust ("clipped-", or one of the attack
// lab's prefixes: cutRobustName). What a peer decides from its task's aggregator (is it
// robust, does a model travel with its Hessian) reads these fields, not
// the string.
type Rule struct {
	// Name is the rule as named (Names, or a lab's "winsorised-X").
	Name string
	// Base is the rule without its wrapper: "mean", "decavg", "fedlay",
	// "dechw", "fedavg", "median" or "trimmed-mean".
	Base string
	// Clipped says the rule is Base inside Robust.
	Clipped bool
}

// ParseRule parses a name New accepts; any other is ErrUnknown.
func ParseRule(name string) (Rule, error) {
	r := Rule{Name: name, Base: name}
	if base, _, ok := cutRobustName(name); ok {
		r.Base, r.Clipped = base, true
	}
	known := slices.Contains(Names(), name)
	if r.Clipped {
		known = slices.Contains([]string{"mean", "decavg", "fedlay", "dechw"}, r.Base) // the weighted peer rules
	}
	if !known {
		return Rule{}, fmt.Errorf("%w: %q (want one of %v)", ErrUnknown, name, Names())
	}
	return r, nil
}

// Robust reports whether the rule is meant for untrusted neighbours
// (IsRobustName).
func (r Rule) Robust() bool { return IsRobustName(r.Name) }

// Hessian reports whether the rule weighs models by their Hessian
// diagonal (DecHW, clipped or not): a model travels with it.
func (r Rule) Hessian() bool { return r.Base == "dechw" }
