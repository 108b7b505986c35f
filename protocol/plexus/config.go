package plexus

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Config configures one peer. Times are in ticks.
type Config struct {
	// ID is this peer. Must be set.
	ID ident.Peer
	// Bandwidth is the bandwidth this peer advertises (>= 1), in the unit
	// all peers share; the largest in a sample aggregates.
	Bandwidth uint64
	// Arch and NumParams describe the model; models of another
	// architecture or length are refused. Must be set.
	Arch      string
	NumParams int
	// DataSize is |D| (>= 1), sent with trained models as their FedAvg
	// weight.
	DataSize int
	// SampleSize is s, the peers per round (the paper's main runs use 13).
	SampleSize int
	// SuccessFraction is sf in (0, 1]: the aggregator averages as soon as
	// it holds floor(s * sf) models (at least 1).
	SuccessFraction float64
	// AggTimeout is T_agg: an aggregator that does not reach the success
	// fraction averages what it holds this many ticks after its round
	// began (its own train request, or its first model as a fallback).
	AggTimeout int
	// RoundTimeout is T_round: a member that sent its trained model and
	// hears nothing of the round's completion within this many ticks
	// re-sends it to the next aggregator in rank. Must exceed AggTimeout.
	RoundTimeout int
	// MaxAttempts bounds the aggregator ranks a member tries (1 = the
	// paper's algorithm, no fallback).
	MaxAttempts int
	// Rounds is the last round (0: no end). Its aggregator announces the
	// result to its sample and pushes nothing further.
	Rounds uint64
}

// DefaultConfig returns the paper's protocol constants and timeouts for
// 100 ms ticks; the caller sets ID, Bandwidth, Arch, NumParams and
// DataSize.
func DefaultConfig() Config {
	return Config{
		SampleSize:      13,   // Sec. 4.1: s = 13
		SuccessFraction: 0.8,  // Sec. 4.1: sf = 0.8, so 10 of 13
		AggTimeout:      1200, // 2 min: rounds average 45-55 s (Fig. 5), few exceed 100 s
		RoundTimeout:    1800, // 3 min: T_agg plus transfers of s models
		MaxAttempts:     3,    // primary and two fallback aggregators
		DataSize:        1,
	}
}

// Validate checks every field.
func (c Config) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
	}
	switch {
	case c.ID == ident.Peer{}:
		return bad("ID not set")
	case c.Bandwidth == 0:
		return bad("Bandwidth 0")
	case len(c.Arch) == 0 || len(c.Arch) > MaxArchLen:
		return bad("Arch %q: want 1 to %d bytes", c.Arch, MaxArchLen)
	case c.NumParams < 1 || c.NumParams > MaxParams:
		return bad("NumParams %d: want 1 to %d", c.NumParams, MaxParams)
	case c.DataSize < 1 || c.DataSize > MaxDataSize:
		return bad("DataSize %d: want 1 to %d", c.DataSize, MaxDataSize)
	case c.SampleSize < 1:
		return bad("SampleSize %d", c.SampleSize)
	case !(c.SuccessFraction > 0 && c.SuccessFraction <= 1):
		return bad("SuccessFraction %v: want (0, 1]", c.SuccessFraction)
	case c.AggTimeout < 1:
		return bad("AggTimeout %d", c.AggTimeout)
	case c.RoundTimeout <= c.AggTimeout:
		return bad("RoundTimeout %d: want > AggTimeout %d", c.RoundTimeout, c.AggTimeout)
	case c.MaxAttempts < 1 || c.MaxAttempts > math.MaxUint8+1:
		return bad("MaxAttempts %d: want 1 to 256", c.MaxAttempts)
	case c.Rounds > MaxRound:
		return bad("Rounds %d", c.Rounds)
	}
	return nil
}

// gate is the success-fraction threshold for a sample of n members:
// floor(min(s, n) * sf), at least 1.
func (c Config) gate(n int) int {
	return max(1, int(math.Floor(float64(min(c.SampleSize, n))*c.SuccessFraction)))
}
