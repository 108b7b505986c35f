package aggregate

import "strings"

// ablatePrefix marks the attack lab's ablations of the clipping rule
// (issue #26: which part of the default pays its cost without attack):
// "ablate-PART-X" is "clipped-X" with one part of Options.Clip turned off
// (ablation). Like "coordclipped-X" the lab's, not in Names: each
// ablation is the default less a defence, never a rule to run.
const ablatePrefix = "ablate-"

// ablation returns what turns the named part of a ClipConfig off, or nil
// for a name that is no part.
func ablation(part string) func(*ClipConfig) {
	switch part {
	case "reject": // a model beyond the radius is cut to tau and used (ClippedGossip), not left out
		return func(c *ClipConfig) { c.Reject = 0 }
	case "direction": // no model left out for pointing back against our step, no Pulls
		return func(c *ClipConfig) { c.Direction = false }
	case "behind": // nothing charged for sitting behind the neighbours' median along our step
		return func(c *ClipConfig) { c.Behind = 0 }
	case "coord": // no coordinate-wise radius: the default before issue #26's backdoor defence
		return func(c *ClipConfig) { c.CoordRadius, c.CoordFloor = 0, 0 }
	case "cons": // no consensus check: the default before issue #26's cut-back attack
		return func(c *ClipConfig) { c.ConsensusCos = 0 }
	case "copy": // copies of our model used like any model: the default before issue #26's copy attack
		return func(c *ClipConfig) { c.CopyBelow = 0 }
	case "floors": // the reference is the low quantile alone
		return func(c *ClipConfig) { c.StepFloor, c.MedianFloor, c.MedianCap = 0, 0, 0 }
	case "cut":
		// tau becomes the rejection radius (Scale*Reject reference
		// distances, Reject 1): every model inside the radius is used
		// whole, the radius stays where it was. Side effect: a rejected
		// model's Severity, 1 - tau/distance, is that of the wider tau,
		// so reputation charges it only beyond twice the radius.
		return func(c *ClipConfig) {
			if c.Reject > 0 {
				c.Scale, c.Reject = c.Scale*c.Reject, 1
			}
		}
	}
	return nil
}

// cutAblatePrefix parses "ablate-PART-X" (PART a part ablation names) and
// returns X and the ablation; ok is false for any other name.
func cutAblatePrefix(name string) (inner string, off func(*ClipConfig), ok bool) {
	rest, lab := strings.CutPrefix(name, ablatePrefix)
	part, inner, dash := strings.Cut(rest, "-")
	if off = ablation(part); !lab || !dash || off == nil {
		return "", nil, false
	}
	return inner, off, true
}
