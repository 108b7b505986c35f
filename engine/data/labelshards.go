package data

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
)

// LabelShards is the pathological non-IID split of McMahan et al. (FedAvg)
// and FedLay ("8 label shards each"): the samples, sorted by label (in
// random order within a label), are cut into clients*k equal consecutive
// shards, and each client gets k shards. A shard straddles two labels
// unless every label's sample count is a multiple of the shard size
// ("shard-aligned" data). Shards are dealt so that a client's k shards
// carry k distinct (majority) labels whenever such a deal exists, for
// instance with equal class sizes and k <= classes. Clients are disjoint,
// equal in size to within one shard, and cover every sample.
func LabelShards(d *Dataset, clients, k int, rng *rand.Rand) ([]Shard, error) {
	if err := checkSplit(d, clients, rng); err != nil {
		return nil, err
	}
	if k < 1 || k > d.Len()/clients {
		return nil, fmt.Errorf("%w: %d shards per client, want 1..%d for %d samples over %d clients", ErrInvalid, k, d.Len()/clients, d.Len(), clients)
	}
	n, total := d.Len(), clients*k
	order := rng.Perm(n)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(d.Y[a], d.Y[b]) })
	shard := func(j int) []int { return order[j*n/total : (j+1)*n/total] }

	// Group shards by their majority label.
	byLabel := make([][]int, d.Classes)
	for j := range total {
		l := majority(d, shard(j))
		byLabel[l] = append(byLabel[l], j)
	}
	labels := make([]int, d.Classes)
	for l := range labels {
		labels[l] = l
	}
	// Largest groups first; within a group, clients with the most free
	// slots first, ties in random order. This greedy (Ryser's
	// construction) finds a distinct-label assignment whenever one exists.
	slices.SortStableFunc(labels, func(a, b int) int { return cmp.Compare(len(byLabel[b]), len(byLabel[a])) })
	free := make([]int, clients)
	for c := range free {
		free[c] = k
	}
	has := make([]bool, clients*d.Classes)
	parts := make([][]int, clients)
	var leftover, cands []int
	pick := func(label int) []int { // clients with room, most room first
		cands = cands[:0]
		for c := range clients {
			if free[c] > 0 && (label < 0 || !has[c*d.Classes+label]) {
				cands = append(cands, c)
			}
		}
		rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
		slices.SortStableFunc(cands, func(a, b int) int { return cmp.Compare(free[b], free[a]) })
		return cands
	}
	give := func(c, j, label int) {
		parts[c] = append(parts[c], shard(j)...)
		free[c]--
		has[c*d.Classes+label] = true
	}
	for _, l := range labels {
		group := byLabel[l]
		cs := pick(l)
		m := min(len(group), len(cs))
		for i := range m {
			give(cs[i], group[i], l)
		}
		leftover = append(leftover, group[m:]...)
	}
	// Labels with more shards than clients able to take them: repeat labels.
	for _, j := range leftover {
		give(pick(-1)[0], j, majority(d, shard(j)))
	}
	return newShards(d, parts), nil
}

// majority returns the most frequent label among the samples (the lowest
// label among equals).
func majority(d *Dataset, idx []int) int {
	h := histogram(d, idx)
	best := 0
	for l, c := range h {
		if c > h[best] {
			best = l
		}
	}
	return best
}
