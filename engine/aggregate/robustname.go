package aggregate

import "strings"

// cutRobustName reads the Robust wrapper a rule name asks for, the one
// place NewWith, ParseRule and IsRobustName learn the prefixes from:
// "clipped-X" and the attack lab's "winsorised-X", "anchored-X",
// "spread-X", "behindout-X", "ablate-PART-X", "mincosN-X" and
// "coordclipped[R][-sF]-X" (byname.go, ablate.go, behindout.go,
// mincos.go). It returns X, what the prefix
// sets in a ClipConfig where the caller's leaves it unset (nil for
// "clipped-"), and ok false for a name without a wrapper.
func cutRobustName(name string) (inner string, set func(*ClipConfig), ok bool) {
	for _, p := range []struct {
		prefix string
		set    func(*ClipConfig)
	}{
		{clippedPrefix, nil},
		{winsorisedPrefix, setWinsorised},
		{anchoredPrefix, setAnchored},
		{spreadPrefix, setSpread},
		{behindoutPrefix, func(c *ClipConfig) { c.BehindLeave = true }},
	} {
		if inner, ok := strings.CutPrefix(name, p.prefix); ok {
			return inner, p.set, true
		}
	}
	if inner, off, ok := cutAblatePrefix(name); ok {
		return inner, off, true
	}
	if inner, set, ok := cutMinCosPrefix(name); ok {
		return inner, set, true
	}
	if n, ok := cutCoordPrefix(name); ok {
		return n.inner, func(c *ClipConfig) {
			// The name's radius and floor (the floor may be none)
			// replace the default's, never a caller's own.
			d := DefaultClipConfig()
			if c.CoordRadius == 0 || c.CoordRadius == d.CoordRadius {
				c.CoordRadius = n.radius
			}
			if c.CoordFloor == 0 || c.CoordFloor == d.CoordFloor {
				c.CoordFloor = n.floor
			}
		}, true
	}
	return "", nil, false
}

// stepFloorUnset: a StepFloor equal to DefaultClipConfig's counts as
// unset for the lab prefixes (the default has one since issue #26's
// reference floors).
func stepFloorUnset(c *ClipConfig) bool {
	return c.StepFloor == 0 || c.StepFloor == DefaultClipConfig().StepFloor
}

// setWinsorised: "winsorised-X" (winsorisedPrefix).
func setWinsorised(c *ClipConfig) {
	c.Winsorise = max(c.Winsorise, 1)
	if stepFloorUnset(c) {
		c.StepFloor = winsorisedStepFloor
	}
}

// setAnchored: "anchored-X" (anchoredPrefix).
func setAnchored(c *ClipConfig) {
	if stepFloorUnset(c) {
		c.StepFloor = anchoredStepFloor
	}
	if c.CutScale == 0 {
		c.CutScale = anchoredCutScale
	}
}

// setSpread: "spread-X" (spreadPrefix).
func setSpread(c *ClipConfig) {
	if c.MedianFloor == 0 {
		c.MedianFloor = spreadMedianFloor
	}
	if stepFloorUnset(c) {
		c.StepFloor = spreadStepFloor
	}
	if c.MedianCap == 0 {
		c.MedianCap = spreadMedianCap
	}
}
