package methodsim

import (
	"math"
	"time"

	"github.com/peerlearn/peerlearn/peer/learn"
)

// Point is one measurement of a run: where it stood (round, virtual
// time), what it had spent so far (summed over all peers) and how
// accurate its models were.
type Point struct {
	// Round is the method's round (Plexus: the aggregated round; D-PSGD:
	// the synchronous round; Gossip Learning: the elapsed periods).
	Round float64
	// Time is the virtual time of the measurement.
	Time time.Duration
	// Bytes is the network volume so far: every byte sent by any peer.
	Bytes int64
	// TrainTime is the training resources so far: the device time all
	// peers spent training. TrainSamples counts the samples.
	TrainTime    time.Duration
	TrainSamples int64
	// Acc and Loss summarise the measured models' test accuracy (in
	// [0, 1]) and loss: the global model for Plexus, the peers' own
	// models for the decentralized methods.
	Acc, Loss learn.Summary
}

// Curve is one method's measurements in time order.
type Curve struct {
	Name   string
	Points []Point
}

// Cost is what a method spent to reach an accuracy.
type Cost struct {
	Time      time.Duration
	Bytes     float64
	TrainTime time.Duration
	Round     float64
}

// Peak returns the highest mean accuracy of the curve (0 if empty).
func (c Curve) Peak() float64 {
	best := 0.0
	for _, p := range c.Points {
		best = math.Max(best, p.Acc.Mean)
	}
	return best
}

// Final returns the last point (the zero Point if empty).
func (c Curve) Final() Point {
	if len(c.Points) == 0 {
		return Point{}
	}
	return c.Points[len(c.Points)-1]
}

// Reach returns the cost at which the mean accuracy first reaches
// target: time, bytes, training time and round are interpolated linearly
// between the last measurement below the target and the first at or
// above it (at the first measurement itself if that one already reaches
// it). ok is false if the curve never reaches the target.
func (c Curve) Reach(target float64) (cost Cost, ok bool) {
	for i, p := range c.Points {
		if p.Acc.Mean < target {
			continue
		}
		if i == 0 {
			return costOf(p), true
		}
		q := c.Points[i-1]
		f := (target - q.Acc.Mean) / (p.Acc.Mean - q.Acc.Mean) // in (0, 1]
		lerp := func(a, b float64) float64 { return a + f*(b-a) }
		return Cost{
			Time:      time.Duration(lerp(float64(q.Time), float64(p.Time))),
			Bytes:     lerp(float64(q.Bytes), float64(p.Bytes)),
			TrainTime: time.Duration(lerp(float64(q.TrainTime), float64(p.TrainTime))),
			Round:     lerp(q.Round, p.Round),
		}, true
	}
	return Cost{}, false
}

func costOf(p Point) Cost {
	return Cost{Time: p.Time, Bytes: float64(p.Bytes), TrainTime: p.TrainTime, Round: p.Round}
}
