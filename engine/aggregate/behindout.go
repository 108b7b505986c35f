package aggregate

// behindoutPrefix marks the attack lab's "behindout-X": "clipped-X" with
// ClipConfig.BehindLeave on (issue #26: the behind check leaves a model
// out for the round instead of charging it from Behind/2). Like
// "ablate-PART-X" the lab's, not in Names.
const behindoutPrefix = "behindout-"

// behindLeaveAt is where BehindLeave leaves a model out: reach/Behind
// above it, the point where the check alone starts to charge (severity
// above reputation's default tolerance, 0.5).
const behindLeaveAt = 0.5

// keepsharePrefix marks the attack lab's "keepshare-X": "clipped-X" with
// ClipConfig.SuspendedKeepShare on (a suspended neighbour's weight
// carries our own model). Meaningful with the lab's "+suspend"; the
// lab's, not in Names.
const keepsharePrefix = "keepshare-"
