package health

import (
	"errors"
	"math"
	"testing"
)

// TestBalanced: a model that answers the dominant class of a skewed shard
// scores 1/k balanced, not the class's share; small classes do not count;
// without any class of MinClassSamples it is the plain accuracy; bad
// counts are refused.
func TestBalanced(t *testing.T) {
	for _, tc := range []struct {
		name           string
		correct, total []int
		want           float64
	}{
		{"one class answered", []int{80, 0, 0}, []int{80, 10, 10}, 1.0 / 3},
		{"all right", []int{80, 10, 10}, []int{80, 10, 10}, 1},
		{"small class left out", []int{40, 5, 0}, []int{40, 10, 2}, 0.75},
		{"no class big enough", []int{2, 1}, []int{4, 4}, 3.0 / 8},
	} {
		got, err := Balanced(tc.correct, tc.total)
		if err != nil || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	for _, bad := range [][2][]int{{{1}, {1, 2}}, {{3}, {2}}, {{-1}, {2}}, {{0, 0}, {0, 0}}} {
		if _, err := Balanced(bad[0], bad[1]); !errors.Is(err, ErrInput) {
			t.Errorf("%v of %v: %v, want ErrInput", bad[0], bad[1], err)
		}
	}
}
