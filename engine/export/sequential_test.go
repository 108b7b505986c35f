package export

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/engine/nn"
)

func TestSequentialPresets(t *testing.T) {
	want := map[string]struct{ modules, params string }{
		"mlp":        {"Flatten Linear ReLU Linear", "1.weight[128 784] 1.bias[128] 3.weight[10 128] 3.bias[10]"},
		"fedlay-mlp": {"Flatten Linear ReLU Linear", "1.weight[78 784] 1.bias[78] 3.weight[10 78] 3.bias[10]"},
		"small-cnn": {"Conv2d ReLU MaxPool2d Conv2d ReLU MaxPool2d Flatten Linear",
			"0.weight[8 1 3 3] 0.bias[8] 3.weight[16 8 3 3] 3.bias[16] 7.weight[10 784] 7.bias[10]"},
		"dechw-cnn": {"Conv2d MaxPool2d ReLU Conv2d MaxPool2d ReLU Flatten Linear ReLU Linear",
			"0.weight[10 1 5 5] 0.bias[10] 3.weight[20 10 5 5] 3.bias[20] 7.weight[50 320] 7.bias[50] 9.weight[10 50] 9.bias[10]"},
		// The rank fixes: Flatten before the Dense (3), Unflatten before
		// the conv (6), and a Flatten at the end (10).
		"odd": {"Conv2d Tanh MaxPool2d Flatten Linear ReLU Unflatten Conv2d MaxPool2d Conv2d Flatten",
			"0.weight[4 3 3 3] 0.bias[4] 4.weight[12 48] 4.bias[12] 7.weight[6 12 1 1] 7.bias[6] 9.weight[5 6 1 1] 9.bias[5]"},
		// GlobalAvgPool is AdaptiveAvgPool2d then Flatten (7, 8 and 13,
		// 14); the AvgPool2D on the flat Dense output needs an Unflatten (11).
		"pooled": {"Conv2d ReLU AvgPool2d Dropout Conv2d Tanh AdaptiveAvgPool2d Flatten Dropout Linear Unflatten AvgPool2d AdaptiveAvgPool2d Flatten Linear",
			"0.weight[5 3 3 3] 0.bias[5] 4.weight[6 5 3 3] 4.bias[6] 9.weight[8 6] 9.bias[8] 14.weight[4 8] 14.bias[4]"},
	}
	for _, a := range testArchs(t) {
		w, ok := want[a.Name]
		if !ok {
			continue
		}
		mods, params, err := Sequential(a)
		if err != nil {
			t.Fatal(err)
		}
		var ms, ps []string
		for _, m := range mods {
			ms = append(ms, m.Type)
		}
		layout, _ := a.Layout()
		for i, p := range params {
			ps = append(ps, fmt.Sprintf("%s%v", p.Name, p.Shape))
			if !slices.Equal(p.Shape, layout[i].Shape) || p.Offset != layout[i].Offset {
				t.Errorf("%s: %s shape %v offset %d, engine tensor %s %v offset %d", a.Name, p.Name, p.Shape, p.Offset, layout[i].Name, layout[i].Shape, layout[i].Offset)
			}
		}
		if got := strings.Join(ms, " "); got != w.modules {
			t.Errorf("%s modules:\n got %s\nwant %s", a.Name, got, w.modules)
		}
		if got := strings.Join(ps, " "); got != w.params {
			t.Errorf("%s params:\n got %s\nwant %s", a.Name, got, w.params)
		}
		delete(want, a.Name)
	}
	if len(want) > 0 {
		t.Errorf("architectures not checked: %v", want)
	}
}

func TestSequentialIndexesLayers(t *testing.T) {
	a := oddArch()
	mods, _, err := Sequential(a)
	if err != nil {
		t.Fatal(err)
	}
	next := 0 // every layer appears once, in order; added modules are -1
	for _, m := range mods {
		if m.Layer == -1 {
			if m.Type != "Flatten" && m.Type != "Unflatten" {
				t.Errorf("added module %v", m)
			}
			continue
		}
		if m.Layer != next {
			t.Fatalf("module %v computes layer %d, want %d", m, m.Layer, next)
		}
		next++
	}
	if next != len(a.Layers) {
		t.Errorf("%d of %d layers in the Sequential", next, len(a.Layers))
	}
	if got := mods[6].String(); got != "Unflatten(dim=1, unflattened_size=[12 1 1])" {
		t.Errorf("module 6 prints %q", got)
	}
}

func TestSequentialRefusesInvalidArch(t *testing.T) {
	a := tinyArch()
	a.Classes = 3 // the last Dense gives 2
	if _, _, err := Sequential(a); !errors.Is(err, nn.ErrArch) {
		t.Fatalf("got %v, want ErrArch", err)
	}
}

func TestNCHW(t *testing.T) {
	a := nn.Arch{Name: "x", Input: [3]int{2, 3, 2}, Classes: 2, Layers: []nn.LayerSpec{nn.Dense(2)}}
	// One sample, HWC: value = 100*h + 10*w + c.
	var x []float32
	for h := range 2 {
		for w := range 3 {
			for c := range 2 {
				x = append(x, float32(100*h+10*w+c))
			}
		}
	}
	x = append(x, x...) // two samples
	got, err := NCHW(a, x)
	if err != nil {
		t.Fatal(err)
	}
	var want []float32
	for range 2 {
		for c := range 2 {
			for h := range 2 {
				for w := range 3 {
					want = append(want, float32(100*h+10*w+c))
				}
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("NCHW:\n got %v\nwant %v", got, want)
	}
	if _, err := NCHW(a, x[:5]); !errors.Is(err, nn.ErrShape) {
		t.Fatalf("5 values: got %v, want ErrShape", err)
	}
}
