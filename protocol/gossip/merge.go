package gossip

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Merge writes into out the age-weighted mean of two models,
// (ageL*local + ageR*remote) / (ageL + ageR), or their plain mean when
// both ages are 0, and returns the merged age max(ageL, ageR). out may be
// local. The arithmetic is aggregate.DecAvg with the ages as data sizes
// (aggregate.Mean for two zero ages). Vectors of different lengths, an
// empty or non-finite one, or an age above MaxAge are refused
// (ErrBadModel) and out is untouched.
func Merge(local, remote []float32, ageL, ageR uint64, out []float32) (uint64, error) {
	switch {
	case ageL > MaxAge || ageR > MaxAge:
		return 0, fmt.Errorf("%w: ages %d, %d above %d", ErrBadModel, ageL, ageR, uint64(MaxAge))
	case len(local) == 0 || len(remote) != len(local) || len(out) != len(local):
		return 0, fmt.Errorf("%w: lengths %d, %d, out %d", ErrBadModel, len(local), len(remote), len(out))
	case f32.FirstNonFinite(local) >= 0 || f32.FirstNonFinite(remote) >= 0:
		return 0, fmt.Errorf("%w: non-finite parameters", ErrBadModel)
	}
	self := aggregate.Contribution{From: ident.Peer{1}, Arch: "-", Params: local, DataSize: int(ageL)}
	other := []aggregate.Contribution{{From: ident.Peer{2}, Arch: "-", Params: remote, DataSize: int(ageR)}}
	var agg aggregate.Aggregator = aggregate.DecAvg{}
	if ageL == 0 && ageR == 0 {
		agg = aggregate.Mean{}
	}
	if _, err := agg.Aggregate(self, other, out); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrBadModel, err) // unreachable after the checks above
	}
	return max(ageL, ageR), nil
}
