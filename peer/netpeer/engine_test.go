package netpeer

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
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
				if err := s.ValidateFor(node.TaskEngine{}); err != nil {
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
		if err := (node.TaskEngine{}).CheckSpec(s); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
}

// Every method the spec accepts is run by a real peer (RealMethods,
// checked end to end by TestPeersLearnTogether) or refused as
// simulator-only, never run as plain FedLay under its name (init he-gain
// with gain 0 runs: the peer estimates its gain); the PENS
// family is accepted with each of its selection policies (which
// TestPENSCoreRunsEveryPolicy checks the core runs).
func TestTaskEngineRefusesSimulatorOnly(t *testing.T) {
	spec := task.DefaultSpec()
	spec.Name = "engine-check"
	for _, m := range task.MethodNames() {
		s := spec
		s.Method = m
		if m == "gossip" || m == "dpsgd" || m == "pens" || m == "plexus" {
			s.Aggregator = "mean"
		}
		if m == "plexus" {
			s.Init = task.Init{Mode: "common", Seed: 1}
		}
		err := s.ValidateFor(node.TaskEngine{})
		switch {
		case m == "pens":
			if err == nil {
				t.Errorf("method pens without a policy accepted")
			}
		case slices.Contains(node.RealMethods(), m):
			if err != nil {
				t.Errorf("method %s: %v", m, err)
			}
		case !errors.Is(err, node.ErrSimulatorOnly):
			t.Errorf("method %s: %v, want node.ErrSimulatorOnly", m, err)
		}
	}
	for _, p := range task.SelectionPolicies()[1:] {
		s := spec
		s.Method, s.Selection, s.Aggregator = "pens", task.Selection{Policy: p}, "mean"
		if p != "local" {
			s.Selection.K = 3
		}
		if err := s.ValidateFor(node.TaskEngine{}); err != nil {
			t.Errorf("pens policy %s: %v", p, err)
		}
	}
	s := spec
	s.Init = task.Init{Mode: "he-gain"} // gain 0: estimated at run time (node.Node, peer/node/sizer.go)
	if err := s.ValidateFor(node.TaskEngine{}); err != nil {
		t.Errorf("he-gain, gain 0: %v", err)
	}
	s.Init.Gain = 0.3
	if err := s.ValidateFor(node.TaskEngine{}); err != nil {
		t.Errorf("he-gain, gain 0.3: %v", err)
	}
}

// Every selection policy a "pens" spec may name is the policy the real
// peer's core runs (not FedLay, not another policy), and the core asks to
// train and then, after round 0, samples its peers.
func TestPENSCoreRunsEveryPolicy(t *testing.T) {
	train := synthetic(100, []int{0, 1, 2}, 1)
	id := ident.Peer{1, 2, 3}
	for _, p := range task.SelectionPolicies()[1:] {
		spec := task.DefaultSpec()
		spec.Name, spec.Method, spec.Selection, spec.Aggregator = "pens-policies", "pens", task.Selection{Policy: p}, "mean"
		if p != "local" {
			spec.Selection.K = 2
		}
		lc, err := node.LearnerConfig(spec, id, train, 100*time.Millisecond)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		lp, err := learn.NewPeer(lc, train)
		if err != nil {
			t.Fatal(err)
		}
		core, err := node.NewCore(spec, lp)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		pens, ok := core.(*method.PENS)
		if !ok || pens.Policy().Kind().String() != p {
			t.Fatalf("policy %s: core %T runs %v", p, core, pens.Policy().Kind())
		}
		if err := core.SetPeers([]ident.Peer{{9}, {8}, {7}}); err != nil {
			t.Fatal(err)
		}
		rd := core.Ready()
		if rd.Train == nil {
			t.Fatalf("%s: round 0 does not train", p)
		}
		if err := core.Trained(rd.Train.Params, 10); err != nil {
			t.Fatal(err)
		}
		// Round 1 samples once the view has held still for two periods
		// (PENSConfig.Settle), at once if it holds a full sample.
		for range 2 * lc.MEP.Period {
			if len(core.Status().Candidates) > 0 {
				break
			}
			core.Tick()
		}
		st := core.Status()
		if p == "local" {
			if st.Role != "training" || len(st.Candidates) != 0 {
				t.Errorf("local: %+v", st)
			}
		} else if len(st.Candidates) == 0 {
			t.Errorf("%s: round 1 sampled no candidates: %+v", p, st)
		}
	}
}
