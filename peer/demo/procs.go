package demo

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// proc is a child process whose stderr goes to a log file.
type proc struct {
	name   string
	cmd    *exec.Cmd
	log    string
	lines  chan string // stdout lines (dropped when nobody reads)
	done   chan struct{}
	status string // peers: the status URL from the first line
	id     string // peers: the hex ID from the first line
}

func startProc(name, logDir, bin string, args ...string) (*proc, error) {
	logPath := filepath.Join(logDir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = f
	ownProcessGroup(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, lines: make(chan string, 16), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		io.Copy(io.Discard, out)
		cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// waitFirstLine reads the peer's first stdout line, which names its ID and
// status URL ("... id=HEX status=URL ...").
func (p *proc) waitFirstLine(ctx context.Context, timeout time.Duration) error {
	select {
	case l := <-p.lines:
		for _, f := range strings.Fields(l) {
			if v, ok := strings.CutPrefix(f, "status="); ok {
				p.status = v
			}
			if v, ok := strings.CutPrefix(f, "id="); ok {
				p.id = v
			}
		}
		if p.status == "" || p.id == "" {
			return fmt.Errorf("%s: first line %q names no id= and status=", p.name, l)
		}
		return nil
	case <-p.done:
		return fmt.Errorf("%s exited at start (log: %s)", p.name, p.log)
	case <-time.After(timeout):
		return fmt.Errorf("%s printed nothing in %v (log: %s)", p.name, timeout, p.log)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop asks the process to leave (SIGTERM) and kills it after grace.
func (p *proc) stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
