package dflsim

import (
	"slices"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
)

// The backdoor's trigger: a TriggerSize x TriggerSize square of the
// brightest pixel value, one pixel in from the bottom-right corner of
// the image, and the class it relabels to.
const (
	TriggerSize    = 3
	BackdoorTarget = 0
)

// Trigger stamps the trigger onto one image x of shape (rows, cols,
// channels), in place.
func Trigger(x []float32, shape [3]int) {
	rows, cols, ch := shape[0], shape[1], shape[2]
	for r := rows - 1 - TriggerSize; r < rows-1; r++ {
		for c := cols - 1 - TriggerSize; c < cols-1; c++ {
			for k := range ch {
				x[(r*cols+c)*ch+k] = 1
			}
		}
	}
}

// Triggered returns the first n samples of test (all if n <= 0) whose
// label is not BackdoorTarget, with the trigger stamped on and labelled
// BackdoorTarget: a model's accuracy on it is the backdoor's attack
// success rate (ASR).
func Triggered(test *data.Dataset, n int) *data.Dataset {
	x, y := Head(test, n)
	f := test.Features()
	out := &data.Dataset{Name: test.Name + "+trigger", Shape: test.Shape, Classes: test.Classes}
	for i, label := range y {
		if label == BackdoorTarget {
			continue
		}
		img := slices.Clone(x[i*f : (i+1)*f])
		Trigger(img, test.Shape)
		out.X = append(out.X, img...)
		out.Y = append(out.Y, BackdoorTarget)
	}
	return out
}

// backdoorBackend is learn.Config.NewBackend for a backdoor attacker.
func backdoorBackend(arch nn.Arch, opt nn.Optimizer) (nn.Backend, error) {
	m, err := nn.NewModel(arch)
	if err != nil {
		return nil, err
	}
	tr, err := nn.NewTrainer(m, opt)
	return triggerBackend{tr, arch.Input}, err
}

// triggerBackend trains on batches whose every other sample carries the
// trigger and the label BackdoorTarget (a poisoned share of one half, as
// in Bagdasaryan et al.'s and Sun et al.'s experiments, so that the
// model keeps its clean accuracy and hides the backdoor).
type triggerBackend struct {
	*nn.Trainer
	shape [3]int
}

func (b triggerBackend) TrainBatch(x []float32, y []int32) (float32, error) {
	if len(y) == 0 {
		return b.Trainer.TrainBatch(x, y)
	}
	f := len(x) / len(y)
	px, py := slices.Clone(x), slices.Clone(y)
	for i := 0; i < len(py); i += 2 {
		Trigger(px[i*f:(i+1)*f], b.shape)
		py[i] = BackdoorTarget
	}
	return b.Trainer.TrainBatch(px, py)
}
