//go:build linux

package overlaysim

import (
	"syscall"
	"time"
)

// maxRSS returns the process's peak resident set size in bytes
// (getrusage ru_maxrss, in KiB on Linux).
func maxRSS() (uint64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return uint64(ru.Maxrss) * 1024, true
}

// cpuTime returns the process's user plus system CPU time: on a shared
// machine it tells how much of a wall time was spent waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
