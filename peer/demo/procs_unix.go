//go:build unix

package demo

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the child in a process group of its own, so a
// Ctrl-C at the terminal reaches only the demo, which then stops its
// children in order.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
