package aggregate

// behindBarPrefix marks the attack lab's "behindN-X": "clipped-X" with
// the behind check's ClipConfig.Behind at N/100 (N a whole number 1 to
// 99) where the caller's config has the default's (issue #26: without
// the behind check adaptive-blind at f = 0.3 on Fashion-MNIST costs 9.5 /
// 19.7 points at seeds 1 / 2 against 8.6 / 10.9 with it: it is what
// unlinks the attackers that hold peers back; a lower bar unlinks them
// sooner, and honest neighbours behind for their data's sake with
// them). Like "mincosN-X" the lab's, not in Names.
const behindBarPrefix = "behind"

// maxBehindBar bounds N in "behindN-X".
const maxBehindBar = 99
