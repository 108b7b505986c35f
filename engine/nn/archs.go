package nn

import (
	"fmt"
	"slices"
)

// MNISTInput is the sample shape of MNIST and Fashion-MNIST (HWC).
var MNISTInput = [3]int{28, 28, 1}

// builtin maps an architecture name to its layer stack for a given class
// count. Parameter counts below are for 28x28x1 inputs and 10 classes.
var builtin = map[string]func(classes int) []LayerSpec{
	// mlp: 784-128-10 with ReLU, the benchmark MLP. 101,770 parameters.
	"mlp": func(k int) []LayerSpec {
		return []LayerSpec{Flatten(), Dense(128), ReLU(), Dense(k)}
	},
	// fedlay-mlp: FedLay's MNIST MLP. The paper (Table II) gives only
	// "MLP, 247 KB"; 784-78-10 with ReLU has 62,020 parameters = 248,080
	// bytes of float32, the one-hidden-layer width closest to 247 kB.
	"fedlay-mlp": func(k int) []LayerSpec {
		return []LayerSpec{Flatten(), Dense(78), ReLU(), Dense(k)}
	},
	// mlp3: three hidden layers 512-256-128 with ReLU, the MLP of the
	// initialisation-gain paper (Appendix). 567,434 parameters.
	"mlp3": func(k int) []LayerSpec {
		return []LayerSpec{Flatten(), Dense(512), ReLU(), Dense(256), ReLU(), Dense(128), ReLU(), Dense(k)}
	},
	// dechw-cnn: DecHW's MNIST CNN (the PyTorch MNIST example): conv
	// 10@5x5 valid, max-pool 2, ReLU, conv 20@5x5 valid, max-pool 2, ReLU,
	// flatten (20x4x4 = 320), dense 50, ReLU, dense 10. 21,840 parameters.
	// Pooling before ReLU gives the same values as after (they commute).
	"dechw-cnn": func(k int) []LayerSpec {
		return []LayerSpec{
			Conv2D(10, 5, 0), MaxPool2D(2), ReLU(),
			Conv2D(20, 5, 0), MaxPool2D(2), ReLU(),
			Flatten(), Dense(50), ReLU(), Dense(k),
		}
	},
	// small-cnn: conv 8@3x3 with padding 1 ("same": 28x28 stays 28x28),
	// ReLU, max-pool 2, conv 16@3x3 padding 1, ReLU, max-pool 2 (16x7x7),
	// flatten, dense 10. 9,098 parameters.
	"small-cnn": func(k int) []LayerSpec {
		return []LayerSpec{
			Conv2D(8, 3, 1), ReLU(), MaxPool2D(2),
			Conv2D(16, 3, 1), ReLU(), MaxPool2D(2),
			Flatten(), Dense(k),
		}
	},
}

// ArchNames lists the built-in architecture names, sorted.
func ArchNames() []string {
	names := make([]string, 0, len(builtin))
	for n := range builtin {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// NewArch returns the built-in architecture name for MNIST-shaped inputs
// (28x28x1) and 10 classes.
func NewArch(name string) (Arch, error) { return ArchFor(name, MNISTInput, 10) }

// ArchFor returns the built-in architecture name for samples of the given
// HWC shape and number of classes, validated.
func ArchFor(name string, input [3]int, classes int) (Arch, error) {
	build, ok := builtin[name]
	if !ok {
		return Arch{}, fmt.Errorf("%w: unknown architecture %q (known: %v)", ErrArch, name, ArchNames())
	}
	a := Arch{Name: name, Input: input, Classes: classes, Layers: build(classes)}
	if _, _, _, err := a.plan(); err != nil {
		return Arch{}, err
	}
	return a, nil
}
