package proctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proc"
)

// logTail is how much of a process's stderr a failed test shows.
const logTail = 6000

// stopGrace is how long Stop waits after SIGTERM before killing.
const stopGrace = 10 * time.Second

// Proc is a started process with its stderr in a file (Log); Cmd, Name,
// Done, Kill, Signal and the rest come from proc.Proc.
type Proc struct {
	*proc.Proc
}

// Start runs bin with args until the test ends. Stdout lines go to lines
// when it is not nil (dropped when it is full); on failure the test logs
// the tail of the process's stderr.
func Start(t testing.TB, name, bin string, args []string, lines chan<- string) *Proc {
	t.Helper()
	return StartEnv(t, name, bin, args, nil, lines)
}

// StartEnv is Start with env (NAME=value entries) added to the
// process's environment. A parallel test cannot t.Setenv, and one
// variable per process (a test hook's file, say) needs it anyway. It
// runs through env(1), which execs bin: the PID is bin's, so signals
// (SIGSTOP, SIGKILL) reach bin itself.
func StartEnv(t testing.TB, name, bin string, args, env []string, lines chan<- string) *Proc {
	t.Helper()
	var prefix []string
	if len(env) > 0 {
		envBin, err := exec.LookPath("env")
		if err != nil {
			t.Fatal(err)
		}
		prefix = append([]string{envBin}, env...)
	}
	logFile := filepath.Join(t.TempDir(), name+".log")
	p, err := proc.Start(proc.Options{Name: name, Bin: bin, Args: args, Prefix: prefix, LogPath: logFile, Lines: lines, DieWithParent: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			if b, err := os.ReadFile(logFile); err == nil {
				t.Logf("--- %s stderr:\n%s", name, Tail(b, logTail))
			}
		}
	})
	return &Proc{p}
}

// Stop sends SIGTERM and waits up to 10 s; a process still running then
// fails the test and is killed.
func (p *Proc) Stop(t testing.TB) {
	t.Helper()
	if !p.Proc.Stop(stopGrace) {
		t.Errorf("%s did not stop on SIGTERM", p.Name)
	}
}

// Tail returns the last n bytes of b, marked with "..." when cut.
func Tail(b []byte, n int) string {
	if len(b) > n {
		return "..." + string(b[len(b)-n:])
	}
	return string(b)
}
