//go:build race

package netpeer

// raceEnabled: the race detector slows training ~10x; timing-bound
// learning tests skip under it.
const raceEnabled = true
