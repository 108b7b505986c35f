package partition

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Spec is a parsed partition spec. The syntax is one or two terms joined
// by "+", at most one split and at most one rotation, in either order:
//
//	iid             IID: equal random parts
//	dirichlet:A     Dirichlet label skew, alpha A > 0 (0.1 skewed, 100 near IID)
//	shards:K        K label shards per client (FedAvg/FedLay pathological non-IID)
//	zipf:S          client sizes by Zipf's law with exponent S >= 0
//	rotate:F        rotate the images of a fraction F in [0, 1] of the
//	                clients by 180 degrees (rotation clusters)
//
// "rotate:F" alone means "iid+rotate:F"; examples: "dirichlet:0.5",
// "shards:8", "shards:2+rotate:0.5".
type Spec struct {
	// Kind is "iid", "dirichlet", "shards" or "zipf".
	Kind string
	// Param is alpha (dirichlet), shards per client (shards) or the
	// exponent (zipf); 0 for iid.
	Param float64
	// Rotate is the fraction of clients whose images are rotated.
	Rotate float64
}

// Parse parses a partition spec (see Spec); errors wrap ErrSpec.
func Parse(s string) (Spec, error) {
	var spec Spec
	var haveRotate bool
	if strings.TrimSpace(s) == "" {
		return Spec{}, fmt.Errorf("%w: empty (want iid, dirichlet:A, shards:K, zipf:S, optionally +rotate:F)", ErrSpec)
	}
	terms := strings.Split(strings.TrimSpace(s), "+")
	if len(terms) > 2 {
		return Spec{}, fmt.Errorf("%w: %q: at most one split and one rotate:F", ErrSpec, s)
	}
	for _, term := range terms {
		term = strings.TrimSpace(term)
		kind, arg, hasArg := strings.Cut(term, ":")
		if kind == "rotate" {
			if haveRotate {
				return Spec{}, fmt.Errorf("%w: %q: rotate given twice", ErrSpec, s)
			}
			haveRotate = true
			f, err := number(s, term, arg, hasArg)
			if err != nil {
				return Spec{}, err
			}
			if f < 0 || f > 1 {
				return Spec{}, fmt.Errorf("%w: %q: rotated fraction %v, want 0..1", ErrSpec, s, f)
			}
			spec.Rotate = f
			continue
		}
		if spec.Kind != "" {
			return Spec{}, fmt.Errorf("%w: %q: two splits (%s and %s)", ErrSpec, s, spec.Kind, kind)
		}
		switch kind {
		case "iid":
			if hasArg {
				return Spec{}, fmt.Errorf("%w: %q: iid takes no argument", ErrSpec, s)
			}
		case "dirichlet", "zipf", "shards":
			v, err := number(s, term, arg, hasArg)
			if err != nil {
				return Spec{}, err
			}
			switch {
			case kind == "dirichlet" && !(v > 0):
				return Spec{}, fmt.Errorf("%w: %q: alpha %v, want > 0", ErrSpec, s, v)
			case kind == "zipf" && !(v >= 0):
				return Spec{}, fmt.Errorf("%w: %q: exponent %v, want >= 0", ErrSpec, s, v)
			case kind == "shards" && (v < 1 || v != math.Trunc(v) || v > math.MaxInt32):
				return Spec{}, fmt.Errorf("%w: %q: shards per client %v, want an integer >= 1", ErrSpec, s, v)
			}
			spec.Param = v
		default:
			return Spec{}, fmt.Errorf("%w: %q: unknown term %q (want iid, dirichlet:A, shards:K, zipf:S, rotate:F)", ErrSpec, s, term)
		}
		spec.Kind = kind
	}
	if spec.Kind == "" { // rotate:F alone
		spec.Kind = "iid"
	}
	return spec, nil
}

// number parses the finite number after "kind:".
func number(s, term, arg string, hasArg bool) (float64, error) {
	if !hasArg || arg == "" {
		return 0, fmt.Errorf("%w: %q: %q needs a value (like %s:0.5)", ErrSpec, s, term, term)
	}
	v, err := strconv.ParseFloat(arg, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %q: %q is not a finite number", ErrSpec, s, arg)
	}
	return v, nil
}

// String returns the spec in canonical form, which Parse reads back.
// Task IDs hash it (protocol/task): never change its output for a spec
// whose form reads back today.
func (s Spec) String() string {
	out := s.Kind
	if s.Kind != "iid" {
		out += ":" + formatNumber(s.Param)
	}
	if s.Rotate > 0 {
		out += "+rotate:" + formatNumber(s.Rotate)
	}
	return out
}

// formatNumber is the shortest form of v, except that a positive exponent
// ("1e+06") is written out in full ("1000000"): its '+' would read as the
// term separator. Negative exponents ("1e-05") stay.
func formatNumber(v float64) string {
	out := strconv.FormatFloat(v, 'g', -1, 64)
	if strings.Contains(out, "e+") {
		out = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return out
}

// Canonical parses s and returns its canonical form.
func Canonical(s string) (string, error) {
	p, err := Parse(s)
	if err != nil {
		return "", err
	}
	return p.String(), nil
}
