package aggregate

import "strings"

// cutRobustName reads the Robust wrapper a rule name asks for, the one
// place NewWith, ParseRule and IsRobustName learn the prefixes from:
// "clipped-X" and the attack lab's "winsorised-X", "anchored-X",
// "spread-X", "behindout-X", "keepshare-X", "ablate-PART-X", "mincosN-X", "signN-X",
// "behindN-X", "cutN-X", "consN-X", "copyN-X" and
// "coordclipped[R][-sF]-X" (byname.go, ablate.go, behindout.go,
// mincos.go, sign.go, behindbar.go, cutlab.go, consensus.go,
// copies.go). It returns X, what the prefix
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
		{keepsharePrefix, func(c *ClipConfig) { c.SuspendedKeepShare = true }},
	} {
		if inner, ok := strings.CutPrefix(name, p.prefix); ok {
			return inner, p.set, true
		}
	}
	if inner, off, ok := cutAblatePrefix(name); ok {
		return inner, off, true
	}
	for _, l := range percentLabs {
		if n, inner, ok := cutPercentPrefix(name, l.prefix, l.most); ok {
			return inner, func(c *ClipConfig) {
				def := DefaultClipConfig()
				setIfUnset(l.field(c), *l.field(&def), l.sign*float64(n)/100)
			}, true
		}
	}
	if n, ok := cutCoordPrefix(name); ok {
		return n.inner, func(c *ClipConfig) {
			d := DefaultClipConfig() // the floor may be none (0)
			setIfUnset(&c.CoordRadius, d.CoordRadius, n.radius)
			setIfUnset(&c.CoordFloor, d.CoordFloor, n.floor)
		}, true
	}
	return "", nil, false
}

// setIfUnset sets *field to v where it is 0 or DefaultClipConfig's own
// value def: a lab prefix replaces the default's setting, never a
// caller's (the default has a StepFloor since issue #26's reference
// floors, a coordinate radius since its backdoor defence, and always a
// MinCosine).
func setIfUnset(field *float64, def, v float64) {
	if *field == 0 || *field == def {
		*field = v
	}
}

// setWinsorised: "winsorised-X" (winsorisedPrefix).
func setWinsorised(c *ClipConfig) {
	c.Winsorise = max(c.Winsorise, 1)
	setIfUnset(&c.StepFloor, DefaultClipConfig().StepFloor, winsorisedStepFloor)
}

// setAnchored: "anchored-X" (anchoredPrefix).
func setAnchored(c *ClipConfig) {
	setIfUnset(&c.StepFloor, DefaultClipConfig().StepFloor, anchoredStepFloor)
	if c.CutScale == 0 {
		c.CutScale = anchoredCutScale
	}
}

// setSpread: "spread-X" (spreadPrefix).
func setSpread(c *ClipConfig) {
	if c.MedianFloor == 0 {
		c.MedianFloor = spreadMedianFloor
	}
	setIfUnset(&c.StepFloor, DefaultClipConfig().StepFloor, spreadStepFloor)
	if c.MedianCap == 0 {
		c.MedianCap = spreadMedianCap
	}
}

// percentLab is one of the lab's "prefixN-X" names: "clipped-X" with one
// ClipConfig setting at sign*N/100 (N 1 to most; cutPercentPrefix)
// where the caller's config leaves it at 0 or the default's value.
type percentLab struct {
	prefix string
	most   int
	field  func(*ClipConfig) *float64
	sign   float64 // +1 or -1
}

// percentLabs: "mincosN-X" (mincos.go), "signN-X" (sign.go),
// "behindN-X" (behindbar.go), "cutN-X" (cutlab.go), "consN-X"
// (consensus.go), "copyN-X" (copies.go).
var percentLabs = []percentLab{
	{minCosPrefix, maxMinCos, func(c *ClipConfig) *float64 { return &c.MinCosine }, -1},
	{signPrefix, maxSignBar, func(c *ClipConfig) *float64 { return &c.SignBar }, 1},
	{behindBarPrefix, maxBehindBar, func(c *ClipConfig) *float64 { return &c.Behind }, 1},
	{cutPrefix, maxCut, func(c *ClipConfig) *float64 { return &c.CutScale }, 1},
	{consensusPrefix, maxConsensus, func(c *ClipConfig) *float64 { return &c.ConsensusCos }, 1},
	{copyPrefix, maxCopy, func(c *ClipConfig) *float64 { return &c.CopyBelow }, 1},
}
