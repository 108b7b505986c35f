// Package taskarch builds the engine architecture a task spec chooses: a
// built-in one (task.Spec.Arch) or a declared model (task.Spec.Model: its
// own layers, or a built-in stack as a preset for its input shape and
// classes), and reads a declared model's initial weights. Package task
// does not link the engine (the signalling server hosts tasks without
// it); this package is the bridge the edges that train use, so that the
// engine's checks (the stack builds for the shape, ends in one logit per
// class) are made the same way everywhere.
package taskarch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/peerlearn/peerlearn/engine/export"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/protocol/task"
)

// ErrData: the data set does not fit the spec's model (shape or classes).
var ErrData = errors.New("taskarch: data set does not fit the model")

// LegacyInput and LegacyClasses are the sample shape and class count of
// a spec without a declared model: its data sets are MNIST-shaped.
var (
	LegacyInput   = nn.MNISTInput
	LegacyClasses = 10
)

// Arch returns the architecture s chooses, validated by the engine: for a
// spec without Model, the built-in Arch on 28x28x1 samples and 10
// classes; with one, its preset or layers on its input and classes,
// named after the task. s must have passed task.Validate; errors name the
// spec field.
func Arch(s task.Spec) (nn.Arch, error) {
	if s.Model == nil {
		a, err := nn.ArchFor(s.Arch, LegacyInput, LegacyClasses)
		if err != nil {
			return nn.Arch{}, fmt.Errorf("arch %q: %w", s.Arch, err)
		}
		return a, nil
	}
	m := s.Model
	if len(m.Input) != 3 {
		return nn.Arch{}, fmt.Errorf("%w: model.input %v: want [height, width, channels]", nn.ErrArch, m.Input)
	}
	input := [3]int{m.Input[0], m.Input[1], m.Input[2]}
	if m.Preset != "" {
		a, err := nn.ArchFor(m.Preset, input, len(m.Classes))
		if err != nil {
			return nn.Arch{}, fmt.Errorf("model.preset %q on %v with %d classes: %w", m.Preset, m.Input, len(m.Classes), err)
		}
		return a, nil
	}
	a := nn.Arch{Name: s.Name, Input: input, Classes: len(m.Classes), Layers: make([]nn.LayerSpec, len(m.Layers))}
	for i, l := range m.Layers {
		spec, err := Layer(l)
		if err != nil {
			return nn.Arch{}, fmt.Errorf("model.layers[%d]: %w", i, err)
		}
		a.Layers[i] = spec
	}
	if _, err := a.Layout(); err != nil {
		return nn.Arch{}, fmt.Errorf("model.layers (input %v, %d classes): %w", m.Input, len(m.Classes), err)
	}
	return a, nil
}

// Layer maps one declared layer to the engine's LayerSpec.
func Layer(l task.Layer) (nn.LayerSpec, error) {
	switch l.Type {
	case "dense":
		return nn.Dense(l.Units), nil
	case "conv2d":
		return nn.LayerSpec{Kind: nn.KindConv2D, Units: l.Filters, Kernel: l.Kernel, Stride: l.StrideOf(), Pad: l.Pad}, nil
	case "maxpool2d":
		return nn.MaxPool2D(l.Kernel), nil
	case "avgpool2d":
		return nn.AvgPool2D(l.Kernel), nil
	case "dropout":
		return nn.Dropout(l.Rate), nil
	case "globalavgpool":
		return nn.GlobalAvgPool(), nil
	case "relu":
		return nn.ReLU(), nil
	case "tanh":
		return nn.Tanh(), nil
	case "flatten":
		return nn.Flatten(), nil
	}
	return nn.LayerSpec{}, fmt.Errorf("%w: type %q (want one of %v)", nn.ErrArch, l.Type, task.LayerTypes())
}

// For returns Arch(s) for a data set whose samples have the given HWC
// shape and class count, refusing (ErrData) a declared model the data do
// not fit. A spec without Model builds its built-in Arch for the data's
// shape, as peers always have.
func For(s task.Spec, shape [3]int, classes int) (nn.Arch, error) {
	if s.Model == nil {
		a, err := nn.ArchFor(s.Arch, shape, classes)
		if err != nil {
			return nn.Arch{}, fmt.Errorf("arch %q: %w", s.Arch, err)
		}
		return a, nil
	}
	a, err := Arch(s)
	if err != nil {
		return nn.Arch{}, err
	}
	if a.Input != shape {
		return nn.Arch{}, fmt.Errorf("%w: model.input %v, the data set's samples are %v", ErrData, s.Model.Input, shape[:])
	}
	if a.Classes != classes {
		return nn.Arch{}, fmt.Errorf("%w: model.classes names %d classes, the data set has %d", ErrData, a.Classes, classes)
	}
	return a, nil
}

// ErrWeights: a declared model's initial weights file is refused.
var ErrWeights = errors.New("taskarch: initial weights refused")

// Weights checks file, the bytes fetched from s.Model.Weights.URL,
// against the spec's SHA-256 and reads it as a's parameters
// (export.ReadSafetensors: every tensor by its state_dict name and
// shape, finite values).
func Weights(s task.Spec, a nn.Arch, file []byte) ([]float32, error) {
	if s.Model == nil || s.Model.Weights == nil {
		return nil, fmt.Errorf("%w: the spec names no model.weights", ErrWeights)
	}
	sum := sha256.Sum256(file)
	if got := hex.EncodeToString(sum[:]); got != s.Model.Weights.SHA256 {
		return nil, fmt.Errorf("%w: model.weights.sha256 is %s, the file fetched from %s has %s", ErrWeights, s.Model.Weights.SHA256, s.Model.Weights.URL, got)
	}
	p, err := export.ReadSafetensors(file, a)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrWeights, s.Model.Weights.URL, err)
	}
	return p, nil
}

// Engine is a task.Engine that adds the declared model's checks (Arch)
// to Base's. Base sees a spec with a declared model as the same spec with
// Model nil and Arch a built-in name, and one with its own data set (Data)
// with Data nil and Dataset a built-in name, so that Base keeps checking
// what it knows (aggregator, method, ...) and nothing of what this
// package checks; nil Base checks only the model.
type Engine struct {
	Base task.Engine
	// AcceptWeights accepts a declared model's initial weights
	// (model.weights). An engine whose peers do not fetch and load them
	// (Weights) must leave it false: a peer that accepted the field and
	// trained from its own initial model would ignore the spec.
	AcceptWeights bool
}

// CheckSpec implements task.Engine. A built-in data set (task.DatasetNames)
// has 28x28x1 samples in 10 classes, so a declared model on one must take
// that input and name 10 classes; a task's own data set (Data) is checked
// against the model when a peer loads it (LoadData).
func (e Engine) CheckSpec(s task.Spec) error {
	if _, err := Arch(s); err != nil {
		return err
	}
	if s.Model != nil && s.Model.Weights != nil && !e.AcceptWeights {
		return fmt.Errorf("%w: model.weights: this engine's peers do not load initial weights", ErrWeights)
	}
	if s.Model != nil && s.Data == nil {
		if _, err := For(s, LegacyInput, LegacyClasses); err != nil {
			return fmt.Errorf("data set %q: %w", s.Dataset, err)
		}
	}
	if e.Base == nil {
		return nil
	}
	if s.Model != nil {
		s.Model, s.Arch = nil, nn.ArchNames()[0]
	}
	if s.Data != nil {
		s.Data, s.Dataset = nil, task.DatasetNames()[0]
	}
	return e.Base.CheckSpec(s)
}
