package aggregate

import (
	"errors"
	"slices"
	"testing"
)

// TestMinCosFromName: "mincosN-X" is "clipped-X" with MinCosine -N/100
// and nothing else changed, a caller's own MinCosine wins, ParseRule and
// IsRobustName agree with New, Names lists none; malformed N is no rule.
func TestMinCosFromName(t *testing.T) {
	d := DefaultClipConfig()
	for _, tc := range []struct {
		name string
		set  float64 // the caller's MinCosine; 0: the default's
		want float64
	}{{"mincos15-fedlay", 0, -0.15}, {"mincos1-mean", 0, -0.01}, {"mincos99-dechw", 0, -0.99}, {"mincos15-fedlay", -0.5, -0.5}} {
		o := DefaultOptions()
		if tc.set != 0 {
			o.Clip.MinCosine = tc.set
		}
		a, err := NewWith(tc.name, o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := d
		want.MinCosine = tc.want
		if r, ok := a.(Robust); !ok || r.Clip != want {
			t.Errorf("%s (caller %v): %T %+v, want Robust with MinCosine %v", tc.name, tc.set, a, a, tc.want)
		}
		if p, err := ParseRule(tc.name); err != nil || !p.Clipped || !p.Robust() || !IsRobustName(tc.name) {
			t.Errorf("%s: ParseRule %+v %v", tc.name, p, err)
		}
		if slices.Contains(Names(), tc.name) {
			t.Errorf("%s: in Names, want the lab's only", tc.name)
		}
	}
	for _, name := range []string{"mincos0-fedlay", "mincos05-fedlay", "mincos100-fedlay", "mincos-fedlay", "mincos15fedlay", "mincos15-median", "mincos15-"} {
		if _, err := New(name); !errors.Is(err, ErrUnknown) {
			t.Errorf("New(%q): %v, want ErrUnknown", name, err)
		}
	}
}
