package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/peerlearn/peerlearn/internal/detmath"
)

// The partitioners split a dataset across clients. Each takes a seeded
// *rand.Rand and uses nothing else random, so the same seed gives the same
// shards on every platform. Unless a partitioner says otherwise the shards
// are disjoint, cover every sample, and each holds at least one sample.

// checkSplit validates the arguments every partitioner shares.
func checkSplit(d *Dataset, clients int, rng *rand.Rand) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if rng == nil {
		return fmt.Errorf("%w: nil *rand.Rand", ErrInvalid)
	}
	if clients < 1 {
		return fmt.Errorf("%w: %d clients, want at least 1", ErrInvalid, clients)
	}
	if clients > d.Len() {
		return fmt.Errorf("%w: %d clients for %d samples", ErrInvalid, clients, d.Len())
	}
	return nil
}

// cut splits order into consecutive parts of the given sizes (summing to
// len(order)).
func cut(order []int, sizes []int) [][]int {
	parts := make([][]int, len(sizes))
	at := 0
	for c, n := range sizes {
		parts[c] = slices.Clone(order[at : at+n])
		at += n
	}
	return parts
}

// atLeastOne raises every zero size to one by taking from the largest
// (the lowest index among equals); the total must be at least len(sizes).
func atLeastOne(sizes []int) {
	for c := range sizes {
		if sizes[c] == 0 {
			big := 0
			for j, n := range sizes {
				if n > sizes[big] {
					big = j
				}
			}
			sizes[big]--
			sizes[c]++
		}
	}
}

// IID shuffles the samples and deals them out in near-equal parts (sizes
// differ by at most one).
func IID(d *Dataset, clients int, rng *rand.Rand) ([]Shard, error) {
	if err := checkSplit(d, clients, rng); err != nil {
		return nil, err
	}
	equal := make([]float64, clients)
	for i := range equal {
		equal[i] = 1
	}
	return newShards(d, cut(rng.Perm(d.Len()), apportion(equal, d.Len()))), nil
}

// Zipf gives client sizes following Zipf's law with exponent s >= 0: the
// client of rank r (1..clients) gets a share proportional to r^-s, ranks
// assigned to clients in random order. Samples are dealt IID. s = 0 is
// IID's equal split; every client keeps at least one sample.
func Zipf(d *Dataset, clients int, s float64, rng *rand.Rand) ([]Shard, error) {
	if err := checkSplit(d, clients, rng); err != nil {
		return nil, err
	}
	if !(s >= 0) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("%w: Zipf exponent %v, want a finite s >= 0", ErrInvalid, s)
	}
	rank := rng.Perm(clients)
	w := make([]float64, clients)
	for c := range w {
		w[c] = detmath.Exp(-s * detmath.Log(float64(rank[c]+1)))
	}
	sizes := apportion(w, d.Len())
	atLeastOne(sizes)
	return newShards(d, cut(rng.Perm(d.Len()), sizes)), nil
}

// Dirichlet gives each client a label skew: for every class, the class's
// samples are shuffled and split across clients in proportions drawn from
// Dir(alpha, ..., alpha) (Hsu et al. 2019; DecHW's setting). Small alpha
// (0.1) concentrates each class on few clients; large alpha (100) is close
// to IID. A client left empty takes one sample from the largest client.
func Dirichlet(d *Dataset, clients int, alpha float64, rng *rand.Rand) ([]Shard, error) {
	if err := checkSplit(d, clients, rng); err != nil {
		return nil, err
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("%w: Dirichlet alpha %v, want a finite alpha > 0", ErrInvalid, alpha)
	}
	byClass := make([][]int, d.Classes)
	for i, y := range d.Y {
		byClass[y] = append(byClass[y], i)
	}
	parts := make([][]int, clients)
	p := make([]float64, clients)
	for _, idx := range byClass {
		if len(idx) == 0 {
			continue
		}
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		dirichlet(rng, alpha, p)
		at := 0
		for c, n := range apportion(p, len(idx)) {
			parts[c] = append(parts[c], idx[at:at+n]...)
			at += n
		}
	}
	for c := range parts {
		if len(parts[c]) == 0 {
			big := 0
			for j := range parts {
				if len(parts[j]) > len(parts[big]) {
					big = j
				}
			}
			last := len(parts[big]) - 1
			parts[c] = append(parts[c], parts[big][last])
			parts[big] = parts[big][:last]
		}
	}
	return newShards(d, parts), nil
}

// RotateClusters marks round(fraction*len(shards)) clients, chosen at
// random, as Rotated (and the others not): the two-cluster feature-skew
// setting of PENS, where one cluster's images are rotated 180 degrees.
// Dataset.Client applies the rotation; rotate the test set the same way to
// evaluate a rotated client.
func RotateClusters(shards []Shard, fraction float64, rng *rand.Rand) error {
	if !(fraction >= 0 && fraction <= 1) {
		return fmt.Errorf("%w: rotated fraction %v, want 0..1", ErrInvalid, fraction)
	}
	if rng == nil {
		return fmt.Errorf("%w: nil *rand.Rand", ErrInvalid)
	}
	n := int(math.Round(fraction * float64(len(shards))))
	for i, c := range rng.Perm(len(shards)) {
		shards[c].Rotated = i < n
	}
	return nil
}
