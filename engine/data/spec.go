package data

import (
	"fmt"
	"math"
	"math/rand/v2"
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

// ParseSpec parses a partition spec (see Spec); errors wrap ErrSpec.
func ParseSpec(s string) (Spec, error) {
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
			f, err := specNumber(s, term, arg, hasArg)
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
			v, err := specNumber(s, term, arg, hasArg)
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

// specNumber parses the finite number after "kind:".
func specNumber(s, term, arg string, hasArg bool) (float64, error) {
	if !hasArg || arg == "" {
		return 0, fmt.Errorf("%w: %q: %q needs a value (like %s:0.5)", ErrSpec, s, term, term)
	}
	v, err := strconv.ParseFloat(arg, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %q: %q is not a finite number", ErrSpec, s, arg)
	}
	return v, nil
}

// String returns the spec in canonical form, which ParseSpec reads back.
func (s Spec) String() string {
	out := s.Kind
	if s.Kind != "iid" {
		out += ":" + strconv.FormatFloat(s.Param, 'g', -1, 64)
	}
	if s.Rotate > 0 {
		out += "+rotate:" + strconv.FormatFloat(s.Rotate, 'g', -1, 64)
	}
	return out
}

// Split partitions d across clients as the spec says, then marks the
// rotated clients (if any) with the same rng.
func (s Spec) Split(d *Dataset, clients int, rng *rand.Rand) ([]Shard, error) {
	var shards []Shard
	var err error
	switch s.Kind {
	case "iid":
		shards, err = IID(d, clients, rng)
	case "dirichlet":
		shards, err = Dirichlet(d, clients, s.Param, rng)
	case "shards":
		if s.Param != math.Trunc(s.Param) || s.Param > math.MaxInt32 {
			return nil, fmt.Errorf("%w: shards per client %v", ErrInvalid, s.Param)
		}
		shards, err = LabelShards(d, clients, int(s.Param), rng)
	case "zipf":
		shards, err = Zipf(d, clients, s.Param, rng)
	default:
		return nil, fmt.Errorf("%w: partition kind %q", ErrInvalid, s.Kind)
	}
	if err != nil {
		return nil, err
	}
	if s.Rotate != 0 {
		if err := RotateClusters(shards, s.Rotate, rng); err != nil {
			return nil, err
		}
	}
	return shards, nil
}

// Partition parses spec and splits d across clients with it.
func Partition(d *Dataset, spec string, clients int, rng *rand.Rand) ([]Shard, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return s.Split(d, clients, rng)
}
