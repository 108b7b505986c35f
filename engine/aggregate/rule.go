package aggregate

import (
	"fmt"
	"slices"
	"strings"
)

// Rule is an aggregator's name parsed once: the weighted rule underneath
// and whether it is wrapped in Robust ("clipped-"). What a peer decides
// from its task's aggregator (is it robust, does a model travel with its
// Hessian) reads these fields, not the string.
type Rule struct {
	// Name is the rule as the spec names it (Names).
	Name string
	// Base is the rule without "clipped-": "mean", "decavg", "fedlay",
	// "dechw", "fedavg", "median" or "trimmed-mean".
	Base string
	// Clipped says the rule is Base inside Robust.
	Clipped bool
}

// ParseRule parses an aggregator's name; an unknown one is ErrUnknown.
func ParseRule(name string) (Rule, error) {
	if !slices.Contains(Names(), name) {
		return Rule{}, fmt.Errorf("%w: %q (want one of %v)", ErrUnknown, name, Names())
	}
	base, clipped := strings.CutPrefix(name, clippedPrefix)
	return Rule{Name: name, Base: base, Clipped: clipped}, nil
}

// Robust reports whether the rule is meant for untrusted neighbours
// (IsRobustName).
func (r Rule) Robust() bool { return IsRobustName(r.Name) }

// Hessian reports whether the rule weighs models by their Hessian
// diagonal (DecHW, clipped or not): a model travels with it.
func (r Rule) Hessian() bool { return r.Base == "dechw" }
