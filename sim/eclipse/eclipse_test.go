package eclipse

import (
	"testing"
	"time"
)

// TestEclipseCosts: under the old placement the attacker's offline
// grinding owns every slot next to the victim; admitted, the same keys
// land at chance and fill (almost surely) not all of them; grinding after
// admission needs admissions of the same order as the old key count.
func TestEclipseCosts(t *testing.T) {
	cfg := Config{N: 100, Spaces: 2, Trials: 3, MaxKeys: 1_000_000, PoWBits: 8,
		SubnetPerHour: 60, SubnetBurst: 30, Epoch: time.Hour, Seed: 7}
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trials) != cfg.Trials || res.PoWHashesPerSecond <= 0 {
		t.Fatalf("%d trials, rate %v", len(res.Trials), res.PoWHashesPerSecond)
	}
	for k, tr := range res.Trials {
		t.Logf("trial %d: %+v", k, tr)
		if !tr.Finished || tr.KeysBefore < 2*cfg.Spaces || tr.Admissions < 2*cfg.Spaces {
			t.Errorf("trial %d: %+v", k, tr)
		}
		if tr.GroundSlotsAfter == 2*cfg.Spaces {
			t.Errorf("trial %d: keys ground offline still own every slot once admitted", k)
		}
	}
	// Reproducible: the same seed, the same counts.
	again, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for k := range res.Trials {
		a, b := res.Trials[k], again.Trials[k]
		if a.KeysBefore != b.KeysBefore || a.Admissions != b.Admissions || a.GroundSlotsAfter != b.GroundSlotsAfter {
			t.Fatalf("trial %d differs between runs: %+v vs %+v", k, a, b)
		}
	}
}

func TestGaps(t *testing.T) {
	// Victim at 100, honest at 50 and 300 (one space).
	g := victimGaps([][]uint64{{100}, {50}, {300}}, 1)
	for _, c := range []struct {
		c    uint64
		want uint32
	}{{51, 1}, {99, 1}, {50, 0}, {100, 0}, {101, 2}, {299, 2}, {300, 0}, {10, 0}, {1 << 63, 0}} {
		if got := g.hits(0, c.c); got != c.want {
			t.Errorf("hits(%d) = %b, want %b", c.c, got, c.want)
		}
	}
}
