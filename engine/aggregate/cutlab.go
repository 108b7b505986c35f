package aggregate

// cutPrefix marks the attack lab's "cutN-X": "clipped-X" with
// ClipConfig.CutScale at N/100 reference distances (N a whole number 1
// to 150, at most the default's Scale, 1.5) where the caller's config
// has none: a used model's difference is cut to that, while tau still
// sets the radius and the severities. Why the lab has it (issue #26):
// adaptive attackers that send their models already cut back to tau
// (the lab's cutback=1) are used at full weight and each pulls tau every
// round, all the same way; a shorter cut bounds that pull, and the far
// honest neighbours' with it. Like "mincosN-X" the lab's, not in Names.
const cutPrefix = "cut"

// maxCut bounds N in "cutN-X" (ClipConfig.CutScale <= Scale).
const maxCut = 150
