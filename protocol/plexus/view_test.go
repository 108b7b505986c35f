package plexus

import (
	"crypto/sha256"
	"errors"
	"math"
	"slices"
	"testing"
)

func TestSampleKey(t *testing.T) {
	id := pid(3)
	buf := append(id[:], 0, 0, 0, 0, 0, 0, 0x01, 0x02)
	if SampleKey(id, 0x0102) != sha256.Sum256(buf) {
		t.Fatal("SampleKey is not SHA-256(id || k as 8 big-endian bytes)")
	}
}

// Two peers whose views hold the same members, learned in different
// orders, agree on every sample, ranking and aggregator.
func TestSameViewSameSample(t *testing.T) {
	ms := members(40)
	a, _ := NewView(ms...)
	rev := slices.Clone(ms)
	slices.Reverse(rev)
	b, _ := NewView(rev[:20]...)
	for _, m := range rev[20:] {
		b.Add(m.ID, 1)           //nolint:errcheck
		b.Add(m.ID, m.Bandwidth) //nolint:errcheck // an update, as from a later message
	}
	for k := uint64(1); k <= 200; k++ {
		sa, sb := a.Sample(k, 7), b.Sample(k, 7)
		if !slices.Equal(sa, sb) || len(sa) != 7 {
			t.Fatalf("round %d: samples differ or short: %v %v", k, sa, sb)
		}
		ra, rb := a.Ranking(k, 7), b.Ranking(k, 7)
		if !slices.Equal(ra, rb) {
			t.Fatalf("round %d: rankings differ", k)
		}
		agg, _ := a.Aggregator(k, 7)
		bw, _ := a.Bandwidth(agg)
		for _, id := range sa {
			if x, _ := a.Bandwidth(id); x > bw {
				t.Fatalf("round %d: aggregator bandwidth %d < member's %d", k, bw, x)
			}
		}
		if agg != ra[0] || !slices.Contains(sa, agg) {
			t.Fatalf("round %d: aggregator %v not rank 0 of the sample", k, agg)
		}
		// The sample is the first s of the whole view sorted by key.
		if k == 1 {
			all := a.Sample(k, 1000)
			if len(all) != 40 || !slices.Equal(all[:7], sa) {
				t.Fatal("sample is not a prefix of the full order")
			}
			for i := 1; i < len(all); i++ {
				x, y := SampleKey(all[i-1], k), SampleKey(all[i], k)
				if string(x[:]) > string(y[:]) {
					t.Fatal("full order not sorted by SampleKey")
				}
			}
		}
	}
}

// Over many rounds every member is sampled about s/n of the time, and
// consecutive samples overlap about as much as independent ones.
func TestSampleUniform(t *testing.T) {
	const n, s, rounds = 100, 10, 5000
	v, _ := NewView(members(n)...)
	counts := map[[32]byte]int{}
	overlap := 0
	last := v.Sample(0, s)
	for k := uint64(1); k <= rounds; k++ {
		smp := v.Sample(k, s)
		for _, id := range smp {
			counts[id]++
			if slices.Contains(last, id) {
				overlap++
			}
		}
		last = smp
	}
	mean, sd := float64(rounds*s)/n, math.Sqrt(rounds*(float64(s)/n)*(1-float64(s)/n))
	for _, m := range members(n) {
		if c := float64(counts[m.ID]); math.Abs(c-mean) > 5*sd {
			t.Errorf("member sampled %v times, want %v ± %v", c, mean, 5*sd)
		}
	}
	// Expected overlap of two independent samples: s*s/n = 1 per round.
	if o := float64(overlap) / rounds; math.Abs(o-1) > 0.15 {
		t.Errorf("consecutive samples share %.3f members on average, want ~1", o)
	}
}

func TestRankingTiesAndView(t *testing.T) {
	v, _ := NewView(Member{pid(1), 5}, Member{pid(2), 5}, Member{pid(3), 5})
	r := v.Ranking(9, 3)
	for i := 1; i < len(r); i++ {
		if !r[i-1].Less(r[i]) {
			t.Fatalf("equal bandwidths not ordered by ID: %v", r)
		}
	}
	if ch, _ := v.Add(pid(2), 9); !ch {
		t.Fatal("bandwidth update not a change")
	}
	if a, _ := v.Aggregator(9, 3); a != pid(2) {
		t.Fatalf("aggregator %v after pid(2) raised its bandwidth", a)
	}
	if ch, _ := v.Add(pid(2), 9); ch {
		t.Fatal("same bandwidth reported as a change")
	}
	if !v.Remove(pid(2)) || v.Remove(pid(2)) || v.Len() != 2 {
		t.Fatal("remove")
	}
	if slices.Contains(v.Sample(9, 3), pid(2)) {
		t.Fatal("removed member still sampled (stale cache)")
	}
	if _, err := v.Add(pid(4), 0); !errors.Is(err, ErrView) {
		t.Fatalf("zero bandwidth: %v", err)
	}
	if _, err := v.Add([32]byte{}, 1); !errors.Is(err, ErrView) {
		t.Fatalf("zero ID: %v", err)
	}
	empty, _ := NewView()
	if _, ok := empty.Aggregator(1, 3); ok || len(empty.Sample(1, 3)) != 0 {
		t.Fatal("empty view")
	}
	if ms := v.Members(); len(ms) != 2 || !ms[0].ID.Less(ms[1].ID) {
		t.Fatalf("members %v", ms)
	}
}
