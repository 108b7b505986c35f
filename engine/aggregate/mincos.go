package aggregate

// minCosPrefix marks the attack lab's "mincosN-X": "clipped-X" with the
// direction check's ClipConfig.MinCosine at -N/100 (N a whole number 1
// to 99) where the caller's config has the default's (issue #26: the
// adaptive attack sits just above the default's -0.3; a stricter bar
// leaves its model out sooner, and honest neighbours pointing back a
// little with it). Like "behindout-X" the lab's, not in Names.
const minCosPrefix = "mincos"

// maxMinCos bounds N in "mincosN-X": MinCosine must stay above -1.
const maxMinCos = 99

// cutMinCosPrefix parses "mincosN-X" and returns X and what it sets;
// ok is false for any other name ("mincos0-X", "mincos05-X",
// "mincos100-X", "mincos-X" are no rule).
func cutMinCosPrefix(name string) (inner string, set func(*ClipConfig), ok bool) {
	n, inner, ok := cutPercentPrefix(name, minCosPrefix, maxMinCos)
	if !ok {
		return "", nil, false
	}
	return inner, func(c *ClipConfig) {
		setIfUnset(&c.MinCosine, DefaultClipConfig().MinCosine, -float64(n)/100)
	}, true
}
