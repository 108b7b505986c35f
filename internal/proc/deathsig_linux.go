package proc

import (
	"os/exec"
	"syscall"
)

// dieWithParent sets the parent-death signal. The kernel ties it to the
// thread that forked the child, not the process; Go keeps its threads
// for the process's life unless a goroutine exits while locked to one,
// which no caller of Start does, and it survives the exec of a Prefix
// (env, ip netns exec), which replace themselves with Bin.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
