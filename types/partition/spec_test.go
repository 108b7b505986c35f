package partition

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	good := []struct {
		in   string
		want Spec
		str  string
	}{
		{"iid", Spec{Kind: "iid"}, "iid"},
		{" dirichlet:0.5 ", Spec{Kind: "dirichlet", Param: 0.5}, "dirichlet:0.5"},
		{"dirichlet:0.50", Spec{Kind: "dirichlet", Param: 0.5}, "dirichlet:0.5"},
		{"shards:8", Spec{Kind: "shards", Param: 8}, "shards:8"},
		{"zipf:1.2", Spec{Kind: "zipf", Param: 1.2}, "zipf:1.2"},
		{"zipf:0", Spec{Kind: "zipf"}, "zipf:0"},
		{"rotate:0.5", Spec{Kind: "iid", Rotate: 0.5}, "iid+rotate:0.5"},
		{"shards:2+rotate:0.5", Spec{Kind: "shards", Param: 2, Rotate: 0.5}, "shards:2+rotate:0.5"},
		{"rotate:1 + dirichlet:1e-1", Spec{Kind: "dirichlet", Param: 0.1, Rotate: 1}, "dirichlet:0.1+rotate:1"},
		{"iid+rotate:0", Spec{Kind: "iid"}, "iid"},
		{"dirichlet:1e-5", Spec{Kind: "dirichlet", Param: 1e-5}, "dirichlet:1e-05"},
		// A positive exponent is written out: its '+' would split the spec.
		{"dirichlet:1e6", Spec{Kind: "dirichlet", Param: 1e6}, "dirichlet:1000000"},
		{"zipf:2.5e21", Spec{Kind: "zipf", Param: 2.5e21}, "zipf:2500000000000000000000"},
	}
	for _, g := range good {
		got, err := Parse(g.in)
		if err != nil || got != g.want || got.String() != g.str {
			t.Errorf("Parse(%q) = %+v (%q), %v; want %+v (%q)", g.in, got, got.String(), err, g.want, g.str)
			continue
		}
		if back, err := Parse(got.String()); err != nil || back != got {
			t.Errorf("%q does not round-trip: %+v, %v", got.String(), back, err)
		}
		if c, err := Canonical(g.in); err != nil || c != g.str {
			t.Errorf("Canonical(%q) = %q, %v; want %q", g.in, c, err, g.str)
		}
	}
	for _, bad := range []string{
		"", " ", "+", "iid+", "random", "iid:3", "dirichlet", "dirichlet:", "dirichlet:0", "dirichlet:-1",
		"dirichlet:NaN", "dirichlet:inf", "dirichlet:x", "shards:0", "shards:2.5", "shards:-1", "shards:1e10",
		"zipf:-1", "rotate:1.5", "rotate:-0.1", "rotate", "iid+dirichlet:1", "rotate:0.1+rotate:0.2",
		"iid+rotate:0.5+zipf:1", "Dirichlet:0.5",
	} {
		if s, err := Parse(bad); !errors.Is(err, ErrSpec) {
			t.Errorf("Parse(%q) = %+v, %v; want ErrSpec", bad, s, err)
		}
		if _, err := Canonical(bad); !errors.Is(err, ErrSpec) {
			t.Errorf("Canonical(%q): %v; want ErrSpec", bad, err)
		}
	}
}

// Parse never panics; what it accepts prints in a canonical form that
// reads back to the same spec and prints the same again.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"iid", "dirichlet:0.5", "shards:8", "zipf:1.2", "rotate:0.5", "shards:2+rotate:0.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrSpec) {
				t.Fatalf("error without ErrSpec: %v", err)
			}
			return
		}
		back, err := Parse(spec.String())
		if err != nil || back != spec || back.String() != spec.String() {
			t.Fatalf("%q parsed to %+v, which prints as %q and reads back as %+v, %v", s, spec, spec.String(), back, err)
		}
	})
}
