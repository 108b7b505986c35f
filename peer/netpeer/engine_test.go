package netpeer

import (
	"errors"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/protocol/task"
)

// Package task lists the names a spec may use itself (it does not link
// the engine); they must be the engine's registries', and every spec task
// accepts must be one the engine runs.
func TestTaskNamesMatchEngine(t *testing.T) {
	if got, want := task.ArchNames(), nn.ArchNames(); !slices.Equal(got, want) {
		t.Errorf("task.ArchNames() = %v, nn.ArchNames() = %v", got, want)
	}
	if got, want := task.DatasetNames(), data.Names(); !slices.Equal(got, want) {
		t.Errorf("task.DatasetNames() = %v, data.Names() = %v", got, want)
	}
	peerRules := slices.DeleteFunc(aggregate.Names(), func(n string) bool { return n == "fedavg" })
	if got := task.AggregatorNames(); !slices.Equal(got, peerRules) {
		t.Errorf("task.AggregatorNames() = %v, aggregate.Names() without fedavg = %v", got, peerRules)
	}
	spec := task.DefaultSpec()
	spec.Name = "engine-check"
	// A new task defends itself: its default rule is one meant for
	// untrusted neighbours.
	if !aggregate.IsRobustName(spec.Aggregator) || spec.Aggregator != aggregate.SafeDefault {
		t.Errorf("task.DefaultSpec aggregator %q, want aggregate.SafeDefault %q", spec.Aggregator, aggregate.SafeDefault)
	}
	for _, ds := range task.DatasetNames() {
		for _, arch := range task.ArchNames() {
			for _, agg := range task.AggregatorNames() {
				s := spec
				s.Dataset, s.Arch, s.Aggregator = ds, arch, agg
				if err := s.ValidateFor(TaskEngine{}); err != nil {
					t.Errorf("%s/%s/%s: %v", ds, arch, agg, err)
				}
			}
		}
	}
}

// TaskEngine refuses what its engine lacks, with the engine's error.
func TestTaskEngineRefuses(t *testing.T) {
	spec := task.DefaultSpec()
	spec.Name = "engine-check"
	for name, c := range map[string]struct {
		mutate func(*task.Spec)
		want   error
	}{
		"dataset":    {func(s *task.Spec) { s.Dataset = "cifar10" }, data.ErrUnknown},
		"aggregator": {func(s *task.Spec) { s.Aggregator = "krum" }, aggregate.ErrUnknown},
		"arch":       {func(s *task.Spec) { s.Arch = "resnet18" }, nn.ErrArch},
	} {
		s := spec
		c.mutate(&s)
		if err := (TaskEngine{}).CheckSpec(s); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
}

// A real peer runs only the overlay's neighbours today (init he-gain with
// gain 0 runs: the peer estimates its gain);
// every other value the spec accepts is refused, never run as plain
// FedLay under its name.
func TestTaskEngineRefusesSimulatorOnly(t *testing.T) {
	spec := task.DefaultSpec()
	spec.Name = "engine-check"
	for _, p := range task.SelectionPolicies() {
		s := spec
		s.Selection = task.Selection{Policy: p}
		if p != "overlay" && p != "local" {
			s.Selection.K = 3
		}
		err := s.ValidateFor(TaskEngine{})
		if p == "overlay" {
			if err != nil {
				t.Errorf("policy overlay: %v", err)
			}
		} else if !errors.Is(err, ErrSimulatorOnly) {
			t.Errorf("policy %s: %v, want ErrSimulatorOnly", p, err)
		}
	}
	s := spec
	s.Init = task.Init{Mode: "he-gain"} // gain 0: estimated at run time (sizer.go)
	if err := s.ValidateFor(TaskEngine{}); err != nil {
		t.Errorf("he-gain, gain 0: %v", err)
	}
	s.Init.Gain = 0.3
	if err := s.ValidateFor(TaskEngine{}); err != nil {
		t.Errorf("he-gain, gain 0.3: %v", err)
	}
}
