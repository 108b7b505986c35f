package data

import (
	"math"
	"slices"
)

// Shard is one client's part of a dataset: indices into the dataset that
// was partitioned, that part's label histogram, and whether the client's
// images are rotated by 180 degrees (rotation clusters). Dataset.Client
// turns it into the client's own Dataset.
type Shard struct {
	// Indices into the partitioned dataset, ascending.
	Indices []int
	// Hist[c] is the number of samples with label c.
	Hist []int
	// Rotated marks a client of the rotated cluster.
	Rotated bool
}

// Len returns the number of samples.
func (s Shard) Len() int { return len(s.Indices) }

// Labels returns the number of distinct labels present.
func (s Shard) Labels() int {
	n := 0
	for _, c := range s.Hist {
		if c > 0 {
			n++
		}
	}
	return n
}

// Entropy returns the entropy of the shard's label distribution in bits:
// 0 for one label, log2(classes) for a uniform spread.
func (s Shard) Entropy() float64 { return Entropy(s.Hist) }

// Entropy returns the entropy in bits of the distribution given by counts
// (0 when all counts are 0). For display and tests, not for partitioning.
func Entropy(counts []int) float64 {
	total := 0
	for _, c := range counts {
		total += c
	}
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(total)
			h -= p * math.Log2(p)
		}
	}
	return h
}

// newShards turns per-client index lists into shards: indices sorted,
// histograms counted.
func newShards(d *Dataset, parts [][]int) []Shard {
	shards := make([]Shard, len(parts))
	for c, p := range parts {
		slices.Sort(p)
		shards[c] = Shard{Indices: p, Hist: histogram(d, p)}
	}
	return shards
}
