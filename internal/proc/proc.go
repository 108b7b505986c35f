package proc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Options say what to run and where its output goes.
type Options struct {
	Name   string   // names the child in errors
	Bin    string   // the program
	Args   []string // its arguments
	Prefix []string // argv run before Bin, e.g. ip netns exec NS
	Dir    string   // working directory; "" is the caller's
	// LogPath is the file that receives stderr; "" keeps the last
	// MemLogSize bytes of it in memory.
	LogPath string
	// Lines receives stdout lines; a line is dropped when it is full.
	Lines chan<- string
	// Keep is how many stdout lines (the first ones) Lines() remembers.
	Keep int
	// OwnGroup starts the child in a process group of its own (unix), so
	// a Ctrl-C at the terminal does not reach it.
	OwnGroup bool
	// DieWithParent has the kernel kill the child (SIGKILL) when the
	// process that started it dies (Linux; elsewhere nothing). Tests set
	// it: a test binary killed by a signal or by -timeout runs no
	// cleanup, and the peers it started went on running, loading every
	// later test on the machine (a CI run stopped by hand left 20).
	DieWithParent bool
}

// MemLogSize bounds the in-memory stderr log.
const MemLogSize = 64 << 10

// Proc is a started child process.
type Proc struct {
	Name string
	Cmd  *exec.Cmd
	Log  string // the stderr file, "" when stderr is kept in memory

	mem      *tailBuffer
	done     chan struct{}
	gotFirst chan struct{}
	mu       sync.Mutex
	first    string
	lines    []string
}

// Start starts the child and the goroutine that reads its stdout.
func Start(o Options) (*Proc, error) {
	argv := append(append([]string(nil), o.Prefix...), o.Bin)
	argv = append(argv, o.Args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = o.Dir
	if o.OwnGroup {
		ownProcessGroup(cmd)
	}
	if o.DieWithParent {
		dieWithParent(cmd)
	}
	p := &Proc{Name: o.Name, Cmd: cmd, Log: o.LogPath, done: make(chan struct{}), gotFirst: make(chan struct{})}
	var logFile *os.File
	if o.LogPath != "" {
		f, err := os.Create(o.LogPath)
		if err != nil {
			return nil, err
		}
		logFile = f
		cmd.Stderr = f
	} else {
		p.mem = &tailBuffer{max: MemLogSize}
		cmd.Stderr = p.mem
	}
	closeLog := func() {
		if logFile != nil {
			logFile.Close()
		}
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		closeLog()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		closeLog()
		return nil, fmt.Errorf("start %s: %w", o.Name, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for n := 0; sc.Scan(); n++ {
			l := sc.Text()
			p.mu.Lock()
			if n == 0 {
				p.first = l
				close(p.gotFirst)
			}
			if len(p.lines) < o.Keep {
				p.lines = append(p.lines, l)
			}
			p.mu.Unlock()
			if o.Lines != nil {
				select {
				case o.Lines <- l:
				default:
				}
			}
		}
		// A line too long for the scanner ends the reading, not the
		// child: it must not block on a full pipe.
		io.Copy(io.Discard, out)
		cmd.Wait()
		closeLog()
		close(p.done)
	}()
	return p, nil
}

// Done is closed once the child has exited and its output is read.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exited reports whether Done is closed.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Signal sends sig to the child.
func (p *Proc) Signal(sig os.Signal) error { return p.Cmd.Process.Signal(sig) }

// Kill sends SIGKILL, which ends a stopped (SIGSTOP) child too, unless
// the child has exited, and waits for it.
func (p *Proc) Kill() {
	select {
	case <-p.done:
	default:
		p.Cmd.Process.Kill()
		<-p.done
	}
}

// Stop sends SIGTERM and waits up to grace for the child to leave, then
// kills it. It reports whether the child left on SIGTERM (or had left).
func (p *Proc) Stop(grace time.Duration) bool {
	select {
	case <-p.done:
		return true
	default:
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		p.Kill()
		return false
	}
}

// Lines returns the stdout lines remembered so far (the first Keep).
func (p *Proc) Lines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines...)
}

// First returns the first stdout line, "" before there is one.
func (p *Proc) First() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first
}

// Field returns the value of key=value in the first stdout line.
func (p *Proc) Field(key string) string { return Field(p.First(), key) }

// Tail returns the last n bytes of the child's stderr log.
func (p *Proc) Tail(n int) string {
	b := p.logText()
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
