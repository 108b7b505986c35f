package data

import (
	"errors"
	"testing"

	"github.com/peerlearn/peerlearn/types/partition"
)

// ParseSpec is the grammar of types/partition (tested there): the same
// spec, the same canonical form, the same error.
func TestParseSpecIsPartitionGrammar(t *testing.T) {
	for _, in := range []string{"iid", " dirichlet:0.50 ", "shards:8", "zipf:0", "rotate:0.5", "rotate:1 + dirichlet:1e-1", "dirichlet:1e6"} {
		got, err := ParseSpec(in)
		want, werr := partition.Parse(in)
		if err != nil || werr != nil || partition.Spec(got) != want || got.String() != want.String() {
			t.Errorf("ParseSpec(%q) = %+v %q, %v; partition.Parse: %+v %q, %v", in, got, got.String(), err, want, want.String(), werr)
		}
	}
	for _, bad := range []string{"", "random", "dirichlet:0", "iid+rotate:0.5+zipf:1"} {
		if _, err := ParseSpec(bad); !errors.Is(err, ErrSpec) || !errors.Is(err, partition.ErrSpec) {
			t.Errorf("ParseSpec(%q): %v; want ErrSpec", bad, err)
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
