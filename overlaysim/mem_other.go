//go:build !linux

package overlaysim

// maxRSS is unavailable here: Scale falls back on the sampled
// runtime.MemStats.Sys peak.
func maxRSS() (uint64, bool) { return 0, false }
