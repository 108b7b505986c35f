package aggregate

import (
	"errors"
	"slices"
	"testing"
)

// TestBehindBarFromName: "behindN-X" is "clipped-X" with Behind N/100
// and nothing else changed, a caller's own Behind wins, ParseRule and
// IsRobustName agree with New, Names lists none; malformed N is no rule,
// and "behindout-X" is still the leave-out.
func TestBehindBarFromName(t *testing.T) {
	for _, tc := range []struct {
		name      string
		set, want float64 // the caller's Behind (0: the default's) and the rule's
	}{{"behind30-fedlay", 0, 0.3}, {"behind1-mean", 0, 0.01}, {"behind99-dechw", 0, 0.99}, {"behind30-fedlay", 0.6, 0.6}} {
		o := DefaultOptions()
		if tc.set != 0 {
			o.Clip.Behind = tc.set
		}
		a, err := NewWith(tc.name, o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := DefaultClipConfig()
		want.Behind = tc.want
		if r, ok := a.(Robust); !ok || r.Clip != want {
			t.Errorf("%s (caller %v): %T %+v, want Robust with Behind %v", tc.name, tc.set, a, a, tc.want)
		}
		if p, err := ParseRule(tc.name); err != nil || !p.Clipped || !p.Robust() || !IsRobustName(tc.name) {
			t.Errorf("%s: ParseRule %+v %v", tc.name, p, err)
		}
		if slices.Contains(Names(), tc.name) {
			t.Errorf("%s: in Names, want the lab's only", tc.name)
		}
	}
	for _, name := range []string{"behind0-fedlay", "behind05-fedlay", "behind100-fedlay", "behind-fedlay", "behind30fedlay", "behind30-median", "behind30-"} {
		if _, err := New(name); !errors.Is(err, ErrUnknown) {
			t.Errorf("New(%q): %v, want ErrUnknown", name, err)
		}
	}
	a, err := New("behindout-fedlay")
	if r, ok := a.(Robust); err != nil || !ok || !r.Clip.BehindLeave || r.Clip.Behind != DefaultClipConfig().Behind {
		t.Errorf("behindout-fedlay: %+v %v, want the leave-out at the default bar", a, err)
	}
}
