package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// declared is golden with a declared model: a small CNN for 28x28x1
// digits with named classes and initial weights.
func declared() Spec {
	s := golden()
	s.Name, s.Arch = "digits-cnn", ""
	s.Model = &Model{
		Input:   []int{28, 28, 1},
		Classes: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
		Layers: []Layer{
			{Type: "conv2d", Filters: 8, Kernel: 3, Pad: 1}, {Type: "relu"}, {Type: "avgpool2d", Kernel: 2},
			{Type: "dropout", Rate: 0.25}, {Type: "flatten"}, {Type: "dense", Units: 10},
		},
		Weights: &Weights{URL: "https://example.org/digits.safetensors", SHA256: strings.Repeat("0f", 32)},
	}
	return s
}

const (
	declaredCanonical = `{"aggregator":"fedlay","arch":"","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"he","seed":0},"local_epochs":1,"local_steps":0,"max_peers":100,"max_rounds":0,"model":{"classes":["0","1","2","3","4","5","6","7","8","9"],"input":[28,28,1],"layers":[{"filters":8,"kernel":3,"pad":1,"type":"conv2d"},{"type":"relu"},{"kernel":2,"type":"avgpool2d"},{"rate":0.25,"type":"dropout"},{"type":"flatten"},{"type":"dense","units":10}],"weights":{"sha256":"0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f","url":"https://example.org/digits.safetensors"}},"name":"digits-cnn","optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":100,"seed":1,"spec":"dirichlet:0.5"},"period_ms":3000,"selection":{"k":0,"policy":"overlay"},"spaces":5,"target_accuracy":0.9,"tiers":false,"version":2}`
	// printf %s "$declaredCanonical" | sha256sum
	declaredID = "4204ec9903ab4c9df829adf63fac07d9cdfcfac6c4cf892378776953ea7afa5e"
)

// TestDeclaredModelCanonical: the model field's canonical form and ID are
// fixed, its keys sorted; it parses back to the same spec; older specs
// (golden, TestGoldenCanonicalAndID) have no "model" key at all.
func TestDeclaredModelCanonical(t *testing.T) {
	s := declared()
	b, err := s.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != declaredCanonical {
		t.Fatalf("canonical form:\n got %s\nwant %s", b, declaredCanonical)
	}
	if id := mustID(t, s); id.Hex() != declaredID {
		t.Fatalf("ID %s, want %s", id.Hex(), declaredID)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(buf.String()); got != string(b) {
		t.Fatalf("keys not in sorted order:\n got %s\nsorted %s", b, got)
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if mustID(t, back) != mustID(t, s) {
		t.Fatal("the canonical form parses to another task")
	}
	if g, _ := golden().Canonical(); bytes.Contains(g, []byte(`"model"`)) {
		t.Fatal("a spec without a model encodes a model key")
	}
}

// TestDeclaredModelNormalizes: a conv2d's explicit stride 1 is its
// default, the same task; stride 2 is another; the caller's spec is not
// changed by Canonical.
func TestDeclaredModelNormalizes(t *testing.T) {
	a := declared()
	b := declared()
	b.Model.Layers[0].Stride = 1
	if mustID(t, a) != mustID(t, b) {
		t.Fatal("stride 1 and no stride are different tasks")
	}
	if b.Model.Layers[0].Stride != 1 {
		t.Fatal("Canonical changed the caller's model")
	}
	c := declared()
	c.Model.Layers[0].Stride = 2
	if mustID(t, a) == mustID(t, c) {
		t.Fatal("stride 2 is the same task as stride 1")
	}
	d := declared()
	d.Model.Classes[3] = "three"
	if mustID(t, a) == mustID(t, d) {
		t.Fatal("renaming a class kept the task")
	}
	p := declared()
	p.Model.Layers, p.Model.Preset = nil, "small-cnn"
	if err := p.Validate(); err != nil {
		t.Fatalf("a preset model: %v", err)
	}
}

// TestDeclaredModelRefuses: every bad declaration is ErrInvalid and names
// its field.
func TestDeclaredModelRefuses(t *testing.T) {
	for _, c := range []struct {
		field string
		edit  func(s *Spec)
	}{
		{"arch", func(s *Spec) { s.Arch = "mlp" }},
		{"model: needs version 2", func(s *Spec) { s.Version, s.Spaces = 1, 0 }},
		{"model.input", func(s *Spec) { s.Model.Input = []int{28, 28} }},
		{"model.input", func(s *Spec) { s.Model.Input = []int{28, 0, 1} }},
		{"model.input", func(s *Spec) { s.Model.Input = []int{4096, 4096, 3} }},
		{"model.classes", func(s *Spec) { s.Model.Classes = []string{"only"} }},
		{"model.classes[2]", func(s *Spec) { s.Model.Classes[2] = "" }},
		{"model.classes[2]", func(s *Spec) { s.Model.Classes[2] = "../x" }},
		{"model.classes[2]", func(s *Spec) { s.Model.Classes[2] = ".." }},
		{"model.classes[2]", func(s *Spec) { s.Model.Classes[2] = " 2" }},
		{"model.classes[2]", func(s *Spec) { s.Model.Classes[2] = "a\x00b" }},
		{"model.classes[2]", func(s *Spec) { s.Model.Classes[2] = "\xff" }},
		{"model.classes[2]", func(s *Spec) { s.Model.Classes[2] = strings.Repeat("x", 65) }},
		{"model.classes[5] \"5\": the same name as model.classes[1]", func(s *Spec) { s.Model.Classes[1] = "5" }},
		{"model.layers: empty", func(s *Spec) { s.Model.Layers = nil }},
		{"model.layers: 65 layers", func(s *Spec) { s.Model.Layers = make([]Layer, 65) }},
		{"model.preset", func(s *Spec) { s.Model.Preset = "small-cnn" }},
		{"model.preset", func(s *Spec) { s.Model.Layers, s.Model.Preset = nil, "resnet" }},
		{"model.layers[1].type", func(s *Spec) { s.Model.Layers[1].Type = "softmax" }},
		{"model.layers[1].units", func(s *Spec) { s.Model.Layers[1].Units = 3 }},
		{"model.layers[0].units", func(s *Spec) { s.Model.Layers[0].Units = 3 }},
		{"model.layers[0].filters", func(s *Spec) { s.Model.Layers[0].Filters = 0 }},
		{"model.layers[0].kernel", func(s *Spec) { s.Model.Layers[0].Kernel = 0 }},
		{"model.layers[0].pad", func(s *Spec) { s.Model.Layers[0].Pad = 3 }},
		{"model.layers[0].pad", func(s *Spec) { s.Model.Layers[0].Pad = -1 }},
		{"model.layers[0].stride", func(s *Spec) { s.Model.Layers[0].Stride = -1 }},
		{"model.layers[0].rate", func(s *Spec) { s.Model.Layers[0].Rate = 0.5 }},
		{"model.layers[2].kernel", func(s *Spec) { s.Model.Layers[2].Kernel = 0 }},
		{"model.layers[2].stride", func(s *Spec) { s.Model.Layers[2].Stride = 2 }},
		{"model.layers[3].rate", func(s *Spec) { s.Model.Layers[3].Rate = 1 }},
		{"model.layers[3].rate", func(s *Spec) { s.Model.Layers[3].Rate = -0.1 }},
		{"model.layers[5].units", func(s *Spec) { s.Model.Layers[5].Units = 0 }},
		{"model.layers[5].units", func(s *Spec) { s.Model.Layers[5].Units = MaxUnits + 1 }},
		{"model.weights.sha256", func(s *Spec) { s.Model.Weights.SHA256 = "abc" }},
		{"model.weights.sha256", func(s *Spec) { s.Model.Weights.SHA256 = strings.Repeat("0F", 32) }},
		{"model.weights.sha256", func(s *Spec) { s.Model.Weights.SHA256 = strings.Repeat("zz", 32) }},
		{"model.weights.url", func(s *Spec) { s.Model.Weights.URL = "ftp://example.org/w" }},
		{"model.weights.url", func(s *Spec) { s.Model.Weights.URL = "/relative/w.safetensors" }},
		{"model.weights.url", func(s *Spec) { s.Model.Weights.URL = "https://user:pw@example.org/w" }},
		{"model.weights.url", func(s *Spec) { s.Model.Weights.URL = "https://example.org/" + strings.Repeat("a", MaxURLLen) }},
	} {
		s := declared()
		c.edit(&s)
		err := s.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: got %v, want ErrInvalid naming it", c.field, err)
		}
	}
	// Unknown keys inside the model are malformed, as at the top level.
	b := strings.Replace(declaredCanonical, `"type":"relu"`, `"type":"relu","alpha":1`, 1)
	if _, err := Parse([]byte(b)); !errors.Is(err, ErrMalformed) {
		t.Errorf("unknown layer key: %v, want ErrMalformed", err)
	}
}
