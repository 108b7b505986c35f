//go:build !unix

package demo

import "os/exec"

// ownProcessGroup is a no-op where there are no process groups (js/wasm,
// windows): the package still builds there, so cmd/peerlearn does too,
// which `peerlearn bench train` under node needs. The demo itself starts
// child processes and runs only on unix.
func ownProcessGroup(*exec.Cmd) {}
