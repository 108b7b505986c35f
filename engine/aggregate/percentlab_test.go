package aggregate

import (
	"errors"
	"slices"
	"testing"
)

// TestPercentLabsFromName: "mincosN-X", "signN-X", "behindN-X", "cutN-X"
// and "consN-X" are "clipped-X" with one setting at -N/100, N/100, N/100,
// N/100, N/100 and nothing else
// changed, a caller's own setting wins, ParseRule and IsRobustName agree
// with New, Names lists none; malformed N is no rule, and "behindout-X"
// is still the leave-out at the default bar.
func TestPercentLabsFromName(t *testing.T) {
	minCos := func(c *ClipConfig) *float64 { return &c.MinCosine }
	sign := func(c *ClipConfig) *float64 { return &c.SignBar }
	behind := func(c *ClipConfig) *float64 { return &c.Behind }
	cut := func(c *ClipConfig) *float64 { return &c.CutScale }
	cons := func(c *ClipConfig) *float64 { return &c.ConsensusCos }
	for _, tc := range []struct {
		name      string
		field     func(*ClipConfig) *float64
		set, want float64 // the caller's setting (0: the default's) and the rule's
	}{
		{"mincos15-fedlay", minCos, 0, -0.15}, {"mincos1-mean", minCos, 0, -0.01}, {"mincos99-dechw", minCos, 0, -0.99}, {"mincos15-fedlay", minCos, -0.5, -0.5},
		{"sign20-fedlay", sign, 0, 0.2}, {"sign49-mean", sign, 0, 0.49}, {"sign20-fedlay", sign, 0.1, 0.1},
		{"behind30-fedlay", behind, 0, 0.3}, {"behind1-mean", behind, 0, 0.01}, {"behind99-dechw", behind, 0, 0.99}, {"behind30-fedlay", behind, 0.6, 0.6},
		{"cut100-fedlay", cut, 0, 1}, {"cut150-mean", cut, 0, 1.5}, {"cut75-fedlay", cut, 0.5, 0.5},
		{"cons1-fedlay", cons, 0, 0.01}, {"cons99-mean", cons, 0, 0.99}, {"cons15-fedlay", cons, 0.4, 0.4},
	} {
		o := DefaultOptions()
		if tc.set != 0 {
			*tc.field(&o.Clip) = tc.set
		}
		a, err := NewWith(tc.name, o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := DefaultClipConfig()
		*tc.field(&want) = tc.want
		if r, ok := a.(Robust); !ok || r.Clip != want {
			t.Errorf("%s (caller %v): %T %+v, want Robust with %v", tc.name, tc.set, a, a, tc.want)
		}
		if p, err := ParseRule(tc.name); err != nil || !p.Clipped || !p.Robust() || !IsRobustName(tc.name) {
			t.Errorf("%s: ParseRule %+v %v", tc.name, p, err)
		}
		if slices.Contains(Names(), tc.name) {
			t.Errorf("%s: in Names, want the lab's only", tc.name)
		}
	}
	for _, name := range []string{
		"mincos0-fedlay", "mincos05-fedlay", "mincos100-fedlay", "mincos-fedlay", "mincos15fedlay", "mincos15-median", "mincos15-",
		"sign0-fedlay", "sign50-fedlay", "sign05-fedlay", "sign-fedlay", "sign20fedlay",
		"behind0-fedlay", "behind05-fedlay", "behind100-fedlay", "behind-fedlay", "behind30fedlay", "behind30-median", "behind30-",
	} {
		if _, err := New(name); !errors.Is(err, ErrUnknown) {
			t.Errorf("New(%q): %v, want ErrUnknown", name, err)
		}
	}
	a, err := New("behindout-fedlay")
	if r, ok := a.(Robust); err != nil || !ok || !r.Clip.BehindLeave || r.Clip.Behind != DefaultClipConfig().Behind {
		t.Errorf("behindout-fedlay: %+v %v, want the leave-out at the default bar", a, err)
	}
}
