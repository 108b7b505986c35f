//go:build !unix

package proc

import "os/exec"

// ownProcessGroup is a no-op where there are no process groups (js/wasm,
// windows): the package still builds there, so cmd/peerlearn does too,
// which `peerlearn bench train` under node needs.
func ownProcessGroup(*exec.Cmd) {}
