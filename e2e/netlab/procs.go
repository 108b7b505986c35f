package netlab

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is a process started in a namespace, its stderr in a log file.
type Proc struct {
	Name  string
	Cmd   *exec.Cmd
	Log   string
	First string // its first stdout line (StartProc waits for it when asked)
	done  chan struct{}
	mu    sync.Mutex
	lines []string // stdout, the first maxLines lines
}

const maxLines = 2000

// Lines returns the stdout lines so far (the first 2000).
func (p *Proc) Lines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines...)
}

// StartProc runs bin with args in namespace ns, stderr to dir/name.log.
// With waitLine it waits up to 15 s for the first stdout line.
func StartProc(ns, dir, name, bin string, args []string, waitLine bool) (*Proc, error) {
	log := filepath.Join(dir, name+".log")
	f, err := os.Create(log)
	if err != nil {
		return nil, err
	}
	cmd := Command(ns, bin, args...)
	cmd.Stderr = f
	out, err := cmd.StdoutPipe()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	p := &Proc{Name: name, Cmd: cmd, Log: log, done: make(chan struct{})}
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case first <- sc.Text():
			default:
			}
			p.mu.Lock()
			if len(p.lines) < maxLines {
				p.lines = append(p.lines, sc.Text())
			}
			p.mu.Unlock()
		}
		io.Copy(io.Discard, out)
		cmd.Wait()
		f.Close()
		close(p.done)
	}()
	if !waitLine {
		return p, nil
	}
	select {
	case p.First = <-first:
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("%s exited at start: %s", name, p.Tail(2000))
	case <-time.After(15 * time.Second):
		p.Kill()
		return nil, fmt.Errorf("%s printed nothing in 15 s: %s", name, p.Tail(2000))
	}
}

// Field returns the value of key=value in the first line.
func (p *Proc) Field(key string) string {
	for _, f := range strings.Fields(p.First) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return ""
}

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Signal sends sig to the process.
func (p *Proc) Signal(sig syscall.Signal) error { return p.Cmd.Process.Signal(sig) }

// Stop sends SIGTERM, waits up to 5 s, then kills.
func (p *Proc) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.Kill()
	}
}

// Kill kills the process (a stopped one too) and waits for it.
func (p *Proc) Kill() {
	select {
	case <-p.done:
	default:
		p.Cmd.Process.Kill()
		<-p.done
	}
}

// Tail is the end of the process's log.
func (p *Proc) Tail(n int) string {
	b, _ := os.ReadFile(p.Log)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
