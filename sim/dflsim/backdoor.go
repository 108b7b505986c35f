package dflsim

import (
	"slices"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
)

// The backdoor's trigger: a TriggerSize x TriggerSize square of the
// brightest pixel value, placed by a TriggerPlace, and the class it
// relabels to.
const (
	TriggerSize    = 3
	BackdoorTarget = 0
)

// TriggerPlace is where the trigger sits in the image.
type TriggerPlace string

const (
	// TriggerCorner: one pixel in from the bottom-right corner, where
	// MNIST's pixels are blank, so honest data gives the weights they
	// feed no gradient (the lab's trigger since issue #26).
	TriggerCorner TriggerPlace = "corner"
	// TriggerCentre: the middle of the image, where honest strokes and
	// garments are, so honest data moves those weights too: the trigger
	// of an attacker who knows that the default clamps, coordinate by
	// coordinate, what the honest majority leaves alone.
	TriggerCentre TriggerPlace = "centre"
)

// TriggerPlaces lists the placements, the default first.
func TriggerPlaces() []TriggerPlace { return []TriggerPlace{TriggerCorner, TriggerCentre} }

// Known reports whether t is a placement, the zero one (TriggerCorner)
// included.
func (t TriggerPlace) Known() bool { return t == "" || slices.Contains(TriggerPlaces(), t) }

// Where says where the trigger sits, for the lab's report.
func (t TriggerPlace) Where() string {
	if t == TriggerCentre {
		return "in the centre"
	}
	return "in the bottom-right corner"
}

// origin returns the trigger's top-left row and column in an image of
// rows x cols; the zero TriggerPlace is TriggerCorner.
func (t TriggerPlace) origin(rows, cols int) (r, c int) {
	if t == TriggerCentre {
		return (rows - TriggerSize) / 2, (cols - TriggerSize) / 2
	}
	return rows - 1 - TriggerSize, cols - 1 - TriggerSize
}

// Trigger stamps the trigger at place onto one image x of shape (rows,
// cols, channels), in place.
func Trigger(x []float32, shape [3]int, place TriggerPlace) {
	rows, cols, ch := shape[0], shape[1], shape[2]
	r0, c0 := place.origin(rows, cols)
	for r := r0; r < r0+TriggerSize; r++ {
		for c := c0; c < c0+TriggerSize; c++ {
			for k := range ch {
				x[(r*cols+c)*ch+k] = 1
			}
		}
	}
}

// Triggered returns the first n samples of test (all if n <= 0) whose
// label is not BackdoorTarget, with the trigger stamped on at place and
// labelled BackdoorTarget: a model's accuracy on it is the backdoor's
// attack success rate (ASR).
func Triggered(test *data.Dataset, n int, place TriggerPlace) *data.Dataset {
	x, y := Head(test, n)
	f := test.Features()
	out := &data.Dataset{Name: test.Name + "+trigger", Shape: test.Shape, Classes: test.Classes}
	for i, label := range y {
		if label == BackdoorTarget {
			continue
		}
		img := slices.Clone(x[i*f : (i+1)*f])
		Trigger(img, test.Shape, place)
		out.X = append(out.X, img...)
		out.Y = append(out.Y, BackdoorTarget)
	}
	return out
}

// backdoorBackend returns learn.Config.NewBackend for a backdoor
// attacker whose trigger sits at place.
func backdoorBackend(place TriggerPlace) func(nn.Arch, nn.Optimizer) (nn.Backend, error) {
	return func(arch nn.Arch, opt nn.Optimizer) (nn.Backend, error) {
		m, err := nn.NewModel(arch)
		if err != nil {
			return nil, err
		}
		tr, err := nn.NewTrainer(m, opt)
		return triggerBackend{tr, arch.Input, place}, err
	}
}

// triggerBackend trains on batches whose every other sample carries the
// trigger and the label BackdoorTarget (a poisoned share of one half, as
// in Bagdasaryan et al.'s and Sun et al.'s experiments, so that the
// model keeps its clean accuracy and hides the backdoor).
type triggerBackend struct {
	*nn.Trainer
	shape [3]int
	place TriggerPlace
}

func (b triggerBackend) TrainBatch(x []float32, y []int32) (float32, error) {
	if len(y) == 0 {
		return b.Trainer.TrainBatch(x, y)
	}
	f := len(x) / len(y)
	px, py := slices.Clone(x), slices.Clone(y)
	for i := 0; i < len(py); i += 2 {
		Trigger(px[i*f:(i+1)*f], b.shape, b.place)
		py[i] = BackdoorTarget
	}
	return b.Trainer.TrainBatch(px, py)
}
