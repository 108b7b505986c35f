//go:build linux

package overlaysim

import "syscall"

// maxRSS returns the process's peak resident set size in bytes
// (getrusage ru_maxrss, in KiB on Linux).
func maxRSS() (uint64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return uint64(ru.Maxrss) * 1024, true
}
