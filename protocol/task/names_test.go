package task

import (
	"testing"

	"github.com/peerlearn/peerlearn/protocol/selection"
)

// The selection policies other than "overlay" are package selection's
// kinds, by the same names.
func TestSelectionPoliciesMatchPackage(t *testing.T) {
	for _, p := range SelectionPolicies()[1:] {
		k, err := selection.ParseKind(p)
		if err != nil || k.String() != p {
			t.Errorf("policy %q: selection.ParseKind gives %v, %v", p, k, err)
		}
	}
	if _, err := selection.ParseKind("overlay"); err == nil {
		t.Error(`selection now has an "overlay" kind: revisit SelectionPolicies`)
	}
	s := golden()
	s.Selection = Selection{Policy: "local"}
	s.Method, s.Aggregator, s.Tiers = "pens", "mean", false
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
}

// Method "fedlay" is the default and encodes as absent: a spec from
// before the field and one naming "fedlay" are the same task.
func TestMethodFedlayIsDefault(t *testing.T) {
	s := golden()
	before, err := s.ID()
	if err != nil {
		t.Fatal(err)
	}
	s.Method = "fedlay"
	after, err := s.ID()
	if err != nil || after != before {
		t.Fatalf("method fedlay: ID %v (%v), want %v", after, err, before)
	}
	for _, m := range MethodNames() {
		s := golden()
		s.Method = m
		if m == "pens" {
			s.Selection = Selection{Policy: "pens", K: 3}
		}
		if m == "gossip" || m == "dpsgd" || m == "pens" || m == "plexus" {
			s.Aggregator, s.Tiers = "mean", false
		}
		if m == "plexus" {
			s.Init = Init{Mode: "common", Seed: 1}
		}
		id, err := s.ID()
		if err != nil {
			t.Errorf("method %s: %v", m, err)
		}
		if m != "fedlay" && id == before {
			t.Errorf("method %s has the fedlay task's ID", m)
		}
	}
}
