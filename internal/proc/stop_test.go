//go:build unix

package proc

import (
	"syscall"
	"testing"
	"time"
)

// A child that ignores SIGTERM is killed after the grace period.
func TestStopKillsStubborn(t *testing.T) {
	// An ignored signal stays ignored across exec: sleep ignores TERM.
	lines := make(chan string, 1)
	p := startShell(t, "stubborn", "trap '' TERM; echo ready; exec sleep 30", Options{Lines: lines})
	select {
	case <-lines: // the trap is set
	case <-time.After(10 * time.Second):
		t.Fatal("no ready line")
	}
	if p.Stop(200 * time.Millisecond) {
		t.Fatal("Stop says a child that ignores SIGTERM left on it")
	}
	if !p.Exited() {
		t.Fatal("stubborn child still running after Stop")
	}
}

// A stopped (SIGSTOP) child is killable.
func TestKillEndsStopped(t *testing.T) {
	p := startShell(t, "frozen", "exec sleep 30", Options{})
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	p.Kill()
	if !p.Exited() {
		t.Fatal("Kill returned before the stopped child exited")
	}
}
