package proc

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"time"
)

// logPoll is how often WaitLog reads the stderr log again.
const logPoll = 20 * time.Millisecond

// WaitLog waits up to timeout for a line of the child's stderr log that
// matches re and returns the match and its groups (FindSubmatch). It
// fails with ErrExited when the child exits without one, with ErrNoLine
// when the time is up, and with ctx's error.
//
// It is how a caller learns what only the child knows, such as the port
// it bound for -addr 127.0.0.1:0: a port picked free by the caller and
// then handed over can be taken by another process in between.
func (p *Proc) WaitLog(ctx context.Context, timeout time.Duration, re *regexp.Regexp) ([]string, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	tick := time.NewTicker(logPoll)
	defer tick.Stop()
	for {
		exited := p.Exited() // before the read: a line written just before the exit counts
		if m := re.FindStringSubmatch(p.logText()); m != nil {
			return m, nil
		}
		if exited {
			return nil, fmt.Errorf("%s: %w (no line matching %q)", p.Name, ErrExited, re)
		}
		select {
		case <-tick.C:
		case <-p.done:
		case <-t.C:
			return nil, fmt.Errorf("%s: %w matching %q in %v", p.Name, ErrNoLine, re, timeout)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// logText is the child's stderr so far (the in-memory log: its last
// MemLogSize bytes).
func (p *Proc) logText() string {
	if p.mem != nil {
		return string(p.mem.bytes())
	}
	b, _ := os.ReadFile(p.Log)
	return string(b)
}

// SignalServerListening matches cmd/signalserver's log line that says
// where it listens: group 1 the scheme (http or https), group 2 the
// address it bound.
// Anchored at the line's start (the log's date and time, then the
// text): an earlier line quoting a task's name cannot match.
var SignalServerListening = regexp.MustCompile(`(?m)^\S+ \S+ signalserver: listening on (https?)://(\S+) \(websocket /signal\)$`)
