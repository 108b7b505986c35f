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
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
}
