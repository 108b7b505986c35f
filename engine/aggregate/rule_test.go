package aggregate

import (
	"errors"
	"testing"
)

// Every name New accepts parses, into the base rule and the wrapper, and
// agrees with IsRobustName; an unknown name is refused.
func TestParseRule(t *testing.T) {
	for _, n := range Names() {
		r, err := ParseRule(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if r.Robust() != IsRobustName(n) || (r.Clipped && "clipped-"+r.Base != n) || (!r.Clipped && r.Base != n) {
			t.Errorf("%s: %+v", n, r)
		}
	}
	if r, _ := ParseRule("clipped-dechw"); !r.Hessian() || !r.Robust() || !r.Clipped {
		t.Errorf("clipped-dechw: %+v", r)
	}
	if r, _ := ParseRule("fedlay"); r.Hessian() || r.Robust() {
		t.Errorf("fedlay: %+v", r)
	}
	if r, err := ParseRule("winsorised-fedlay"); err != nil || !r.Clipped || r.Base != "fedlay" || !r.Robust() {
		t.Errorf("winsorised-fedlay: %+v, %v", r, err)
	}
	if _, err := ParseRule("clipped-median"); !errors.Is(err, ErrUnknown) {
		t.Errorf("clipped-median: %v", err)
	}
}
