package proctest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// logTail is how much of a process's stderr a failed test shows.
const logTail = 6000

// stopGrace is how long Stop waits after SIGTERM before killing.
const stopGrace = 10 * time.Second

// Proc is a started process with its stderr in a file.
type Proc struct {
	Name string
	Cmd  *exec.Cmd
	Log  string // path of the stderr file
	done chan struct{}
}

// Start runs bin with args until the test ends. Stdout lines go to lines
// when it is not nil (dropped when it is full); on failure the test logs
// the tail of the process's stderr.
func Start(t testing.TB, name, bin string, args []string, lines chan<- string) *Proc {
	t.Helper()
	logFile := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = f
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Proc{Name: name, Cmd: cmd, Log: logFile, done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if lines != nil {
				select {
				case lines <- sc.Text():
				default:
				}
			}
		}
		cmd.Wait()
		f.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			if b, err := os.ReadFile(logFile); err == nil {
				t.Logf("--- %s stderr:\n%s", name, Tail(b, logTail))
			}
		}
	})
	return p
}

// Done is closed once the process has exited and its output is read.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Kill sends SIGKILL (unless the process has exited) and waits for it.
func (p *Proc) Kill() {
	select {
	case <-p.done:
	default:
		p.Cmd.Process.Kill()
		<-p.done
	}
}

// Stop sends SIGTERM and waits up to 10 s; a process still running then
// fails the test and is killed.
func (p *Proc) Stop(t testing.TB) {
	t.Helper()
	p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopGrace):
		t.Errorf("%s did not stop on SIGTERM", p.Name)
		p.Kill()
	}
}

// Tail returns the last n bytes of b, marked with "..." when cut.
func Tail(b []byte, n int) string {
	if len(b) > n {
		return "..." + string(b[len(b)-n:])
	}
	return string(b)
}
