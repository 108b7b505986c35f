package attack

import (
	"cmp"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// SignChecked reports whether rule runs the sign check
// (aggregate.ClipConfig.SignBar), which an attacker that knows the rule
// evades with BalanceSigns.
func SignChecked(rule aggregate.Aggregator) bool {
	r, ok := aggregate.RobustOf(rule)
	return ok && r.Clip.SignBar > 0
}

// BalanceSigns zeroes, in v, the smallest entries of the sign that
// outnumbers the other until both signs count the same: a push the sign
// check cannot tell from an honest difference by its signs, bought with
// its weakest coordinates. A push of fewer than
// aggregate.SignMinChanged nonzero entries, which the check does not
// judge, is left as it is. It reports whether a nonzero entry is left.
func BalanceSigns(v []float32) bool {
	var pos, neg []int
	for i, x := range v {
		switch {
		case x > 0:
			pos = append(pos, i)
		case x < 0:
			neg = append(neg, i)
		}
	}
	if len(pos)+len(neg) < aggregate.SignMinChanged {
		return len(pos)+len(neg) > 0
	}
	more, fewer := pos, neg
	if len(neg) > len(pos) {
		more, fewer = neg, pos
	}
	abs := func(i int) float32 { return max(v[i], -v[i]) }
	slices.SortStableFunc(more, func(a, b int) int { return cmp.Compare(abs(a), abs(b)) })
	for _, i := range more[:len(more)-len(fewer)] {
		v[i] = 0
	}
	return len(fewer) > 0
}
