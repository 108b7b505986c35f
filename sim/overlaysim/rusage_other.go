//go:build !linux

package overlaysim

import "time"

// maxRSS is unavailable here: Scale falls back on the sampled
// runtime.MemStats.Sys peak.
func maxRSS() (uint64, bool) { return 0, false }

// cpuTime is unavailable here (0).
func cpuTime() time.Duration { return 0 }
