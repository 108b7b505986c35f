package data

import (
	"errors"
	"testing"
)

func TestParseSpec(t *testing.T) {
	good := []struct {
		in   string
		want Spec
		str  string
	}{
		{"iid", Spec{Kind: "iid"}, "iid"},
		{" dirichlet:0.5 ", Spec{Kind: "dirichlet", Param: 0.5}, "dirichlet:0.5"},
		{"shards:8", Spec{Kind: "shards", Param: 8}, "shards:8"},
		{"zipf:1.2", Spec{Kind: "zipf", Param: 1.2}, "zipf:1.2"},
		{"zipf:0", Spec{Kind: "zipf"}, "zipf:0"},
		{"rotate:0.5", Spec{Kind: "iid", Rotate: 0.5}, "iid+rotate:0.5"},
		{"shards:2+rotate:0.5", Spec{Kind: "shards", Param: 2, Rotate: 0.5}, "shards:2+rotate:0.5"},
		{"rotate:1 + dirichlet:1e-1", Spec{Kind: "dirichlet", Param: 0.1, Rotate: 1}, "dirichlet:0.1+rotate:1"},
		{"iid+rotate:0", Spec{Kind: "iid"}, "iid"},
	}
	for _, g := range good {
		got, err := ParseSpec(g.in)
		if err != nil || got != g.want || got.String() != g.str {
			t.Errorf("ParseSpec(%q) = %+v (%q), %v; want %+v (%q)", g.in, got, got.String(), err, g.want, g.str)
			continue
		}
		if back, err := ParseSpec(got.String()); err != nil || back != got {
			t.Errorf("%q does not round-trip: %+v, %v", got.String(), back, err)
		}
	}
	for _, bad := range []string{
		"", " ", "+", "iid+", "random", "iid:3", "dirichlet", "dirichlet:", "dirichlet:0", "dirichlet:-1",
		"dirichlet:NaN", "dirichlet:inf", "dirichlet:x", "shards:0", "shards:2.5", "shards:-1", "shards:1e10",
		"zipf:-1", "rotate:1.5", "rotate:-0.1", "rotate", "iid+dirichlet:1", "rotate:0.1+rotate:0.2",
		"iid+rotate:0.5+zipf:1", "Dirichlet:0.5",
	} {
		if s, err := ParseSpec(bad); !errors.Is(err, ErrSpec) {
			t.Errorf("ParseSpec(%q) = %+v, %v; want ErrSpec", bad, s, err)
		}
	}
}

func TestSpecSplit(t *testing.T) {
	d := synth(uniform(10, 40))
	shards, err := Partition(d, "shards:2+rotate:0.5", 10, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	checkShards(t, "shards:2+rotate:0.5", d, shards, 10)
	rotated := 0
	for _, s := range shards {
		if s.Labels() != 2 {
			t.Errorf("client has %d labels, want 2", s.Labels())
		}
		if s.Rotated {
			rotated++
		}
	}
	if rotated != 5 {
		t.Errorf("%d of 10 clients rotated, want 5", rotated)
	}
	if _, err := Partition(d, "dirichlet:0.5", 401, seeded(1)); !errors.Is(err, ErrInvalid) {
		t.Errorf("401 clients for 400 samples: %v", err)
	}
	if _, err := Partition(d, "bogus", 4, seeded(1)); !errors.Is(err, ErrSpec) {
		t.Errorf("bogus spec: %v", err)
	}
	for _, s := range []Spec{{Kind: "magic"}, {Kind: "shards", Param: 1.5}, {Kind: "iid", Rotate: 2}} {
		if _, err := s.Split(d, 4, seeded(1)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v", s, err)
		}
	}
}
