package simnet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Latency is a one-way delay distribution. Sample must draw only from r,
// so that runs are reproducible.
type Latency interface {
	Sample(r *rand.Rand) time.Duration
	// Mean is the distribution's mean, for reports.
	Mean() time.Duration
}

// Fixed is a constant delay.
type Fixed time.Duration

func (f Fixed) Sample(*rand.Rand) time.Duration { return time.Duration(f) }
func (f Fixed) Mean() time.Duration             { return time.Duration(f) }

// Uniform draws uniformly from [Min, Max].
type Uniform struct{ Min, Max time.Duration }

func (u Uniform) Sample(r *rand.Rand) time.Duration {
	return u.Min + time.Duration(r.Int64N(int64(u.Max-u.Min)+1))
}
func (u Uniform) Mean() time.Duration { return (u.Min + u.Max) / 2 }

// Normal draws from a normal distribution, redrawn below Min (so it is
// truncated, and its mean is somewhat above MeanD when Min cuts into it).
// MeanD must be at least Min.
type Normal struct{ MeanD, StdDev, Min time.Duration }

func (n Normal) Sample(r *rand.Rand) time.Duration {
	for {
		d := time.Duration(float64(n.MeanD) + r.NormFloat64()*float64(n.StdDev))
		if d >= n.Min {
			return d
		}
	}
}
func (n Normal) Mean() time.Duration { return n.MeanD }

// Exponential is Min plus an exponential delay of mean MeanD-Min: a
// propagation floor with a queueing tail.
type Exponential struct{ MeanD, Min time.Duration }

func (e Exponential) Sample(r *rand.Rand) time.Duration {
	return e.Min + time.Duration(r.ExpFloat64()*float64(e.MeanD-e.Min))
}
func (e Exponential) Mean() time.Duration { return e.MeanD }

// ValidateLatency checks a distribution's parameters.
func ValidateLatency(l Latency) error {
	bad := fmt.Errorf("%w: latency %#v", ErrInvalid, l)
	switch v := l.(type) {
	case nil:
		return bad
	case Fixed:
		if v < 0 {
			return bad
		}
	case Uniform:
		if v.Min < 0 || v.Max < v.Min {
			return bad
		}
	case Normal:
		if v.Min < 0 || v.StdDev < 0 || v.MeanD < v.Min {
			return bad
		}
	case Exponential:
		if v.Min < 0 || v.MeanD < v.Min {
			return bad
		}
	}
	if l.Mean() < 0 || math.IsNaN(float64(l.Mean())) {
		return bad
	}
	return nil
}
