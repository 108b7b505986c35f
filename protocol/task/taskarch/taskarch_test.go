package taskarch

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"crypto/sha256"
	"encoding/hex"

	"github.com/peerlearn/peerlearn/engine/export"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/protocol/task"
)

// declared is a spec with a small declared CNN for MNIST.
func declared() task.Spec {
	s := task.DefaultSpec()
	s.Name, s.Arch = "digits-cnn", ""
	s.Model = &task.Model{
		Input:   []int{28, 28, 1},
		Classes: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
		Layers: []task.Layer{
			{Type: "conv2d", Filters: 4, Kernel: 3, Pad: 1, Stride: 2}, {Type: "relu"}, {Type: "avgpool2d", Kernel: 2},
			{Type: "dropout", Rate: 0.25}, {Type: "conv2d", Filters: 6, Kernel: 3}, {Type: "tanh"}, {Type: "maxpool2d", Kernel: 2},
			{Type: "globalavgpool"}, {Type: "flatten"}, {Type: "dense", Units: 10},
		},
	}
	return s
}

func TestArchDeclared(t *testing.T) {
	s := declared()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := Arch(s)
	if err != nil {
		t.Fatal(err)
	}
	want := "digits-cnn 28x28x1 conv2d(4,k3,s2,p1) relu avgpool2d(2) dropout(0.25) conv2d(6,k3,s1,p0) tanh maxpool2d(2) globalavgpool flatten dense(10) ->10"
	if a.String() != want {
		t.Fatalf("arch\n got %s\nwant %s", a, want)
	}
	// 4*1*9+4 + 6*4*9+6 + 6*10+10 = 40 + 222 + 70
	if n, err := a.NumParams(); err != nil || n != 332 {
		t.Fatalf("%d parameters (%v), want 332", n, err)
	}
	if err := (Engine{}).CheckSpec(s); err != nil {
		t.Fatalf("CheckSpec: %v", err)
	}
}

// TestLayerTypesMatchEngine: every type the spec format lists maps to the
// engine's kind of the same name, so the two vocabularies stay in step.
func TestLayerTypesMatchEngine(t *testing.T) {
	for _, typ := range task.LayerTypes() {
		l, err := Layer(task.Layer{Type: typ, Units: 1, Filters: 1, Kernel: 1})
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if k, ok := nn.KindByName(typ); !ok || k != l.Kind {
			t.Errorf("type %s maps to %v, the engine's kind of that name is %v (%v)", typ, l.Kind, k, ok)
		}
	}
	if _, err := Layer(task.Layer{Type: "softmax"}); !errors.Is(err, nn.ErrArch) {
		t.Errorf("unknown type: %v", err)
	}
}

func TestPresetAndLegacy(t *testing.T) {
	s := declared()
	s.Model.Layers, s.Model.Preset = nil, "small-cnn"
	s.Model.Input, s.Model.Classes = []int{32, 32, 3}, []string{"cat", "dog", "bird", "fish"}
	a, err := Arch(s)
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "small-cnn" || a.Input != [3]int{32, 32, 3} || a.Classes != 4 {
		t.Fatalf("preset arch %v", a)
	}
	// Its data set (mnist) is 28x28x1 in 10 classes: refused, naming the field.
	if err := (Engine{}).CheckSpec(s); !errors.Is(err, ErrData) || !strings.Contains(err.Error(), "model.input") {
		t.Fatalf("CheckSpec of a 32x32x3 model on mnist: %v", err)
	}
	if _, err := For(s, [3]int{32, 32, 3}, 5); !errors.Is(err, ErrData) || !strings.Contains(err.Error(), "model.classes") {
		t.Fatalf("For with 5 classes: %v", err)
	}
	if _, err := For(s, [3]int{32, 32, 3}, 4); err != nil {
		t.Fatalf("For on fitting data: %v", err)
	}
	legacy := task.DefaultSpec()
	legacy.Name = "x"
	la, err := For(legacy, nn.MNISTInput, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := nn.NewArch("mlp"); la.String() != want.String() {
		t.Fatalf("legacy arch %v, want %v", la, want)
	}
}

// TestEngineRefuses: stacks that pass the spec's form checks but not the
// engine's are refused with the field named.
func TestEngineRefuses(t *testing.T) {
	for _, c := range []struct {
		name, want string
		edit       func(m *task.Model)
	}{
		{"logits", "model.layers", func(m *task.Model) { m.Layers[len(m.Layers)-1].Units = 9 }},
		{"kernel", "model.layers", func(m *task.Model) { m.Layers[4].Kernel = 40 }},
		{"pool", "model.layers", func(m *task.Model) { m.Layers[6].Kernel = 9 }},
		{"no params", "model.layers", func(m *task.Model) { m.Layers = []task.Layer{{Type: "flatten"}} }},
		{"input", "model.input", func(m *task.Model) { m.Input = []int{28, 28, 3} }},
		{"classes", "model.layers", func(m *task.Model) { m.Classes = m.Classes[:5] }},
	} {
		s := declared()
		c.edit(s.Model)
		err := (Engine{}).CheckSpec(s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %s", c.name, err, c.want)
		}
	}
}

// baseEngine records the spec it was shown.
type baseEngine struct {
	seen task.Spec
	err  error
}

func (b *baseEngine) CheckSpec(s task.Spec) error { b.seen = s; return b.err }

// TestEngineBase: the base engine sees the spec without the model (the
// model is this package's to check) and its refusal is returned.
func TestEngineBase(t *testing.T) {
	b := &baseEngine{}
	s := declared()
	if err := (Engine{Base: b}).CheckSpec(s); err != nil {
		t.Fatal(err)
	}
	if b.seen.Model != nil || !slices.Contains(nn.ArchNames(), b.seen.Arch) || b.seen.Dataset != s.Dataset {
		t.Fatalf("base saw %+v", b.seen)
	}
	if s.Model == nil {
		t.Fatal("CheckSpec changed the caller's spec")
	}
	w := declared()
	w.Model.Weights = &task.Weights{URL: "https://example.org/w", SHA256: strings.Repeat("0a", 32)}
	if err := (Engine{}).CheckSpec(w); !errors.Is(err, ErrWeights) || !strings.Contains(err.Error(), "model.weights") {
		t.Fatalf("weights without AcceptWeights: %v", err)
	}
	if err := (Engine{AcceptWeights: true}).CheckSpec(w); err != nil {
		t.Fatalf("weights with AcceptWeights: %v", err)
	}
	b.err = errors.New("no such aggregator")
	if err := (Engine{Base: b}).CheckSpec(s); !errors.Is(err, b.err) {
		t.Fatalf("base refusal lost: %v", err)
	}
}

func TestWeights(t *testing.T) {
	s := declared()
	a, err := Arch(s)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := a.NumParams()
	params := make([]float32, n)
	for i := range params {
		params[i] = float32(i%7) - 3
	}
	file, err := export.Safetensors(a, params)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(file)
	s.Model.Weights = &task.Weights{URL: "https://example.org/w.safetensors", SHA256: hex.EncodeToString(sum[:])}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	got, err := Weights(s, a, file)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, params) {
		t.Fatal("weights read back differ")
	}
	bad := slices.Clone(file)
	bad[len(bad)-1] ^= 1
	if _, err := Weights(s, a, bad); !errors.Is(err, ErrWeights) || !strings.Contains(err.Error(), "model.weights.sha256") {
		t.Fatalf("changed file: %v", err)
	}
	// The right hash of a file for another model: the reader refuses it.
	other, _ := nn.NewArch("mlp")
	on, _ := other.NumParams()
	ofile, err := export.Safetensors(other, make([]float32, on))
	if err != nil {
		t.Fatal(err)
	}
	osum := sha256.Sum256(ofile)
	s.Model.Weights.SHA256 = hex.EncodeToString(osum[:])
	if _, err := Weights(s, a, ofile); !errors.Is(err, ErrWeights) {
		t.Fatalf("another model's file: %v", err)
	}
	s.Model.Weights = nil
	if _, err := Weights(s, a, file); !errors.Is(err, ErrWeights) {
		t.Fatalf("no weights named: %v", err)
	}
}
