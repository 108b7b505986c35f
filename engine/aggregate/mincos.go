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
