package task

import (
	"encoding/hex"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Model declares a task's model in the spec ("model"): the sample shape,
// the classes by name, the layer stack (or one of the built-in stacks,
// ArchNames, as a preset for this shape and class count) and optionally
// the initial weights. A spec with a Model leaves Arch empty; a spec
// without one (every spec written before the field) names a built-in
// architecture in Arch for its data set's 28x28x1 samples and 10 classes,
// and keeps its canonical form and ID: the field is absent from the
// encoding when nil.
//
// Package task checks the declaration's form (Validate); whether the
// stack builds for the shape and ends in one logit per class, and whether
// the data set has that shape and those classes, is the engine's check
// (Engine, protocol/task/taskarch).
type Model struct {
	// Classes names the labels, in label order: label i is Classes[i].
	// 2 to MaxClasses distinct names (see validClassName).
	Classes []string `json:"classes"`
	// Input is one sample's shape: height, width, channels (HWC, as the
	// data sets store samples), each at least 1.
	Input []int `json:"input"`
	// Layers is the stack, input to logits; empty when Preset names one.
	Layers []Layer `json:"layers,omitempty"`
	// Preset names a built-in stack (ArchNames) built for Input and
	// Classes; "" when Layers declares one.
	Preset string `json:"preset,omitempty"`
	// Weights, if not nil, is every peer's initial model.
	Weights *Weights `json:"weights,omitempty"`
}

// Layer is one layer of a declared model. Type is one of LayerTypes; each
// type takes only its own fields, the others stay 0 (absent):
//
//	dense          units
//	conv2d         filters, kernel, pad (default 0), stride (default 1)
//	maxpool2d      kernel (the window and its step)
//	avgpool2d      kernel (the window and its step)
//	dropout        rate, the drop probability in [0, 1)
//	relu, tanh, flatten, globalavgpool   none
type Layer struct {
	Filters int     `json:"filters,omitempty"`
	Kernel  int     `json:"kernel,omitempty"`
	Pad     int     `json:"pad,omitempty"`
	Rate    float64 `json:"rate,omitempty"`
	Stride  int     `json:"stride,omitempty"`
	Type    string  `json:"type"`
	Units   int     `json:"units,omitempty"`
}

// Weights names a safetensors file (engine/export's layout: the
// state_dict of the model's equivalent torch Sequential) holding the
// initial parameters, by URL and SHA-256: a peer refuses a file whose
// hash differs.
type Weights struct {
	// SHA256 is the file's SHA-256, 64 lowercase hex digits.
	SHA256 string `json:"sha256"`
	// URL is where peers fetch it: an absolute http or https URL of at
	// most MaxURLLen bytes.
	URL string `json:"url"`
}

// Limits on a declared model.
const (
	MaxClasses      = 1000    // Model.Classes
	MaxClassNameLen = 64      // bytes of one class name
	MaxModelLayers  = 64      // Model.Layers
	MaxInputSide    = 4096    // Model.Input height and width
	MaxInputChans   = 64      // Model.Input channels
	MaxInputValues  = 1 << 22 // values of one sample
	MaxUnits        = 1 << 16 // Layer.Units and Layer.Filters
	MaxKernel       = 256     // Layer.Kernel and Layer.Stride
	MaxURLLen       = 2048    // Weights.URL
)

// LayerTypes lists the layer types a declared model may use, sorted.
func LayerTypes() []string {
	return []string{"avgpool2d", "conv2d", "dense", "dropout", "flatten", "globalavgpool", "maxpool2d", "relu", "tanh"}
}

// validArch checks Arch against Model: exactly one of them chooses the
// model. Validate calls it in place of the plain arch check.
func (s *Spec) validArch() error {
	if s.Model == nil {
		return oneOf("arch", s.Arch, ArchNames())
	}
	if s.Arch != "" {
		return invalid("arch %q: leave it empty when model declares the model (model.preset names a built-in stack)", s.Arch)
	}
	if s.Version < 2 {
		return invalid("model: needs version 2 or later, the spec has version %d", s.Version)
	}
	return s.Model.validate()
}

func (m *Model) validate() error {
	if len(m.Input) != 3 {
		return invalid("model.input %v: want [height, width, channels]", m.Input)
	}
	h, w, c := m.Input[0], m.Input[1], m.Input[2]
	if h < 1 || w < 1 || h > MaxInputSide || w > MaxInputSide || c < 1 || c > MaxInputChans || h*w*c > MaxInputValues {
		return invalid("model.input %v: want height and width 1 to %d, channels 1 to %d, at most %d values", m.Input, MaxInputSide, MaxInputChans, MaxInputValues)
	}
	if len(m.Classes) < 2 || len(m.Classes) > MaxClasses {
		return invalid("model.classes: %d names, want 2 to %d", len(m.Classes), MaxClasses)
	}
	seen := make(map[string]int, len(m.Classes))
	for i, name := range m.Classes {
		if err := validClassName(name); err != nil {
			return invalid("model.classes[%d] %q: %v", i, name, err)
		}
		if j, dup := seen[name]; dup {
			return invalid("model.classes[%d] %q: the same name as model.classes[%d]", i, name, j)
		}
		seen[name] = i
	}
	switch {
	case m.Preset != "" && len(m.Layers) > 0:
		return invalid("model.preset %q: a model has either a preset or layers, not both", m.Preset)
	case m.Preset != "":
		if err := oneOf("model.preset", m.Preset, ArchNames()); err != nil {
			return err
		}
	case len(m.Layers) == 0:
		return invalid("model.layers: empty; declare the layers or name a model.preset %v", ArchNames())
	case len(m.Layers) > MaxModelLayers:
		return invalid("model.layers: %d layers, want at most %d", len(m.Layers), MaxModelLayers)
	}
	for i := range m.Layers {
		if err := m.Layers[i].validate(i); err != nil {
			return err
		}
	}
	if m.Weights != nil {
		return m.Weights.validate()
	}
	return nil
}

// validClassName: 1 to MaxClassNameLen bytes of printable UTF-8, no
// slash or backslash, not "." or "..", no leading or trailing space (an
// image-folder data set names its class folders so).
func validClassName(n string) error {
	switch {
	case n == "" || len(n) > MaxClassNameLen:
		return fmt.Errorf("want 1 to %d bytes", MaxClassNameLen)
	case !utf8.ValidString(n):
		return fmt.Errorf("not UTF-8")
	case n == "." || n == "..":
		return fmt.Errorf("not a usable folder name")
	case strings.TrimSpace(n) != n:
		return fmt.Errorf("leading or trailing space")
	case strings.ContainsAny(n, `/\`):
		return fmt.Errorf("contains a slash")
	}
	for _, r := range n {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("contains the unprintable %U", r)
		}
	}
	return nil
}

// layerFields says which numeric fields each type takes.
var layerFields = map[string][]string{
	"dense": {"units"}, "conv2d": {"filters", "kernel", "pad", "stride"},
	"maxpool2d": {"kernel"}, "avgpool2d": {"kernel"}, "dropout": {"rate"},
	"relu": nil, "tanh": nil, "flatten": nil, "globalavgpool": nil,
}

func (l *Layer) validate(i int) error {
	field := func(name string) string { return fmt.Sprintf("model.layers[%d].%s", i, name) }
	takes, ok := layerFields[l.Type]
	if !ok {
		return oneOf(field("type"), l.Type, LayerTypes())
	}
	set := map[string]bool{"units": l.Units != 0, "filters": l.Filters != 0, "kernel": l.Kernel != 0,
		"pad": l.Pad != 0, "stride": l.Stride != 0, "rate": l.Rate != 0 || math.Signbit(l.Rate)}
	for _, f := range []string{"filters", "kernel", "pad", "rate", "stride", "units"} {
		if set[f] && !slices.Contains(takes, f) {
			return invalid("%s: a %s layer takes %v, not %s", field(f), l.Type, orNone(takes), f)
		}
	}
	switch l.Type {
	case "dense":
		return intIn(field("units"), l.Units, 1, MaxUnits)
	case "conv2d":
		if err := intIn(field("filters"), l.Filters, 1, MaxUnits); err != nil {
			return err
		}
		if err := intIn(field("kernel"), l.Kernel, 1, MaxKernel); err != nil {
			return err
		}
		if err := intIn(field("pad"), l.Pad, 0, l.Kernel-1); err != nil {
			return err
		}
		if l.Stride != 0 {
			return intIn(field("stride"), l.Stride, 1, MaxKernel)
		}
	case "maxpool2d", "avgpool2d":
		return intIn(field("kernel"), l.Kernel, 1, MaxKernel)
	case "dropout":
		if math.IsNaN(l.Rate) || l.Rate < 0 || l.Rate >= 1 {
			return invalid("%s %v: want 0 <= rate < 1", field("rate"), l.Rate)
		}
	}
	return nil
}

func (w *Weights) validate() error {
	if len(w.SHA256) != 64 || strings.ToLower(w.SHA256) != w.SHA256 {
		return invalid("model.weights.sha256 %q: want 64 lowercase hex digits", w.SHA256)
	}
	if _, err := hex.DecodeString(w.SHA256); err != nil {
		return invalid("model.weights.sha256 %q: want 64 lowercase hex digits", w.SHA256)
	}
	if len(w.URL) > MaxURLLen {
		return invalid("model.weights.url: %d bytes, want at most %d", len(w.URL), MaxURLLen)
	}
	u, err := url.Parse(w.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return invalid("model.weights.url %q: want an absolute http or https URL without credentials", w.URL)
	}
	return nil
}

// normalized returns the declaration in canonical form: a conv2d's
// stride 1 (its default) absent, so that both spellings are one task.
func (m *Model) normalized() *Model {
	n := *m
	n.Input = slices.Clone(m.Input)
	n.Classes = slices.Clone(m.Classes)
	n.Layers = slices.Clone(m.Layers)
	for i := range n.Layers {
		if n.Layers[i].Type == "conv2d" && n.Layers[i].Stride == 1 {
			n.Layers[i].Stride = 0
		}
	}
	if m.Weights != nil {
		w := *m.Weights
		n.Weights = &w
	}
	return &n
}

// StrideOf returns a layer's stride: Stride, or 1 when absent.
func (l Layer) StrideOf() int { return max(l.Stride, 1) }

func orNone(fields []string) any {
	if len(fields) == 0 {
		return "no fields"
	}
	return fields
}
