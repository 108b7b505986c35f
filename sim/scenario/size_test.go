package scenario

import (
	"context"
	"errors"
	"testing"
)

// -n: scenarios with a MinN take it, the others (and the fixed-size
// aliases) refuse it before doing any work; too small a size is refused.
func TestSizeOption(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
	}{
		{"vsteady", 10},          // fixed size
		{"fedlay-mnist", 100},    // fixed size, even at its own size
		{"pens-rotated-200", 80}, // an alias of a size
		{"plexus-300", 300},
		{"pens-rotated", pensMinClients - 1}, // too small
		{"plexus", plexusMinPeers - 1},
		{"pens-rotated", pensMaxClients + 1}, // too large
		{"plexus", plexusMaxPeers + 1},
	} {
		s, err := Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		// No DataDir: a scenario that got past the size check would fail
		// on the missing data instead.
		if _, err := s.Run(context.Background(), Options{N: c.n, Quick: true}); !errors.Is(err, ErrSize) {
			t.Errorf("%s -n %d: %v, want ErrSize", c.name, c.n, err)
		}
	}
	for _, name := range []string{"pens-rotated", "plexus"} {
		s, _ := Lookup(name)
		if _, err := s.Run(context.Background(), Options{N: s.MinN, Quick: true, DataDir: t.TempDir()}); !errors.Is(err, ErrNoData) {
			t.Errorf("%s -n %d without data: %v, want ErrNoData (the size accepted)", name, s.MinN, err)
		}
	}
}

// A client count between the thesis' two settings gets an equal share of
// MNIST's 60,000 training images, at most 1,200 each; from 200 clients on,
// Table 3.3's second setting samples 20.
func TestPENSScale(t *testing.T) {
	for _, c := range []struct{ clients, perClient, sampled int }{
		{50, 1200, 5}, {100, 600, 5}, {200, 300, 20}, {300, 200, 20},
	} {
		p := pensScale(c.clients, false)
		if p.clients != c.clients || p.perClient != c.perClient || p.pensSampled != c.sampled ||
			p.rounds != 50 || p.arch != "fedlay-mlp" || p.lr != 0.05 || p.batch != 16 || p.steps != 15 || p.m != 4 {
			t.Errorf("%d clients: %+v", c.clients, p)
		}
	}
}
