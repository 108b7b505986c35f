package dflsim

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/engine/data"
)

// HoldOut splits a peer's shard d into what it trains on and a held-out
// part of about frac of it (every class alike: of a class's samples, in
// their order, the held-out ones are those where floor(rank*frac) steps
// up, so a class of n samples gives floor(n*frac) of them). The
// neighbourhood check (Health) scores models on the held-out part: our
// own freshly trained model, scored on the samples it just trained on,
// has a home advantage no neighbour's model has (docs/RESULTS.md, issue
// #26, "Why the false alarms"); scored on samples it never saw, it is
// measured as the neighbours' models are.
//
// When no class gives a sample (a tiny shard) the last sample is held
// out; a shard of fewer than two samples is not split (held is d
// itself: nothing would be left to train on or to score on).
func HoldOut(d *data.Dataset, frac float64) (train, held *data.Dataset, err error) {
	if !(frac > 0 && frac < 1) {
		return nil, nil, fmt.Errorf("%w: hold-out share %v not in (0, 1)", ErrConfig, frac)
	}
	if d.Len() < 2 {
		return d, d, nil
	}
	rank := make(map[int32]int)
	var keep, out []int
	for i, y := range d.Y {
		r := rank[y]
		rank[y] = r + 1
		if math.Floor(float64(r+1)*frac) > math.Floor(float64(r)*frac) {
			out = append(out, i)
		} else {
			keep = append(keep, i)
		}
	}
	if len(out) == 0 {
		keep, out = keep[:len(keep)-1], []int{keep[len(keep)-1]}
	}
	if train, err = d.Subset(keep); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if held, err = d.Subset(out); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return train, held, nil
}
