package main

import (
	"fmt"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// speedTrainings is how many of the spec's trainings trainSpeed times:
// about a quarter second for bench live's MNIST MLP here.
const speedTrainings = 20

// trainSpeed is the samples a second this machine trains spec's model
// at, timed over speedTrainings trainings (learn.Peer's TrainFrom, as a
// real peer's method driver runs them) on shard 0 of n: the speed of
// `sim train -spec`'s devices (bench live gives the simulator the speed
// each real peer reported instead). Gossip's result depends on it: a
// model that reaches a peer while it trains waits, and only the newest
// waiting one is merged next.
func trainSpeed(spec task.Spec, train, test *data.Dataset, n int) (float64, error) {
	lp, _, err := learnerOn(spec, ident.Peer{1}, train, test, "", 0, n, 100*time.Millisecond, nil, func(string, ...any) {})
	if err != nil {
		return 0, err
	}
	params, err := lp.Params()
	if err != nil {
		return 0, err
	}
	samples, t0 := 0, time.Now()
	for range speedTrainings {
		w, err := lp.TrainFrom(params)
		if err != nil {
			return 0, err
		}
		w.Run()
		samples += w.Samples()
		if err := lp.Finish(w); err != nil {
			return 0, err
		}
		params = lp.Published()
	}
	d := time.Since(t0)
	if samples == 0 || d <= 0 {
		return 0, fmt.Errorf("timing %d trainings: %d samples in %v", speedTrainings, samples, d)
	}
	return float64(samples) / d.Seconds(), nil
}
