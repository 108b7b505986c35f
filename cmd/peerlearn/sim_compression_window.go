package main

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
)

// The compression scenario's final accuracy is not one evaluation at the
// end: on Fashion-MNIST a run's accuracy still moves by about a point
// from one round to the next when it stops, so where the last round
// happened to land moved a run's "final" as much as a codec did (f16,
// near lossless, was 0.3 to 2 points from float32 a seed). Each peer's
// final accuracy is the mean over the models it ended its last few rounds
// on, each on its whole own-distribution test split; the window is the
// same for every codec and for float32.

// compressionWindow is how many of its last rounds a peer's final
// accuracy averages over: the last quarter of the run's rounds (4 of 16,
// 2 of quick mode's 8), at least one.
func compressionWindow(rounds int) int { return max(1, rounds/4) }

// roundModels keeps, per peer, copies of the models it ended its last w
// rounds on.
type roundModels struct {
	w      int
	round  []int
	models [][][]float32
}

func newRoundModels(n, w int) *roundModels {
	rm := &roundModels{w: w, round: make([]int, n), models: make([][][]float32, n)}
	for i := range rm.round {
		rm.round[i] = -1
	}
	return rm
}

// seen tells rm that peer i's round counter is round and it holds model
// m: when the counter has moved since the last call, m is what the peer
// ended its previous round on (its round's aggregate or trained model,
// as the method defines Model), and is kept.
func (rm *roundModels) seen(i, round int, m []float32) {
	if round == rm.round[i] || m == nil {
		return
	}
	rm.round[i] = round
	rm.keep(i, m)
}

// end keeps the models the peers hold at the end of the run (the models
// today's single end measurement takes), unless a peer's is the one it
// already kept last.
func (rm *roundModels) end(models [][]float32) {
	for i, m := range models {
		if m != nil {
			rm.keep(i, m)
		}
	}
}

func (rm *roundModels) keep(i int, m []float32) {
	kept := rm.models[i]
	if k := len(kept); k > 0 && slices.Equal(kept[k-1], m) {
		return
	}
	kept = append(kept, slices.Clone(m))
	if len(kept) > rm.w {
		kept = slices.Delete(kept, 0, len(kept)-rm.w)
	}
	rm.models[i] = kept
}

// accuracy returns the mean over the peers of each one's mean accuracy
// over its kept models (window), and of its last model's alone (end),
// each on the peer's whole test split tests[i]; a peer with no model
// counts 0.
func (rm *roundModels) accuracy(ev *learn.Evaluator, tests []*data.Dataset) (window, end float64, err error) {
	if len(tests) != len(rm.models) {
		return 0, 0, fmt.Errorf("compression: %d test splits for %d peers", len(tests), len(rm.models))
	}
	for i, kept := range rm.models {
		if len(kept) == 0 {
			continue
		}
		t := tests[i]
		var sum, a float64
		for _, m := range kept {
			mt, err := ev.Evaluate(m, t.X, t.Y)
			if err != nil {
				return 0, 0, err
			}
			a = mt.Accuracy
			sum += a
		}
		window += sum / float64(len(kept))
		end += a
	}
	n := float64(len(rm.models))
	return window / n, end / n, nil
}
