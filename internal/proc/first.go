package proc

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// WaitFirst waits up to timeout for the first stdout line and returns
// it. It fails with ErrExited when the child exits without one, with
// ErrNoLine when the time is up, and with ctx's error.
func (p *Proc) WaitFirst(ctx context.Context, timeout time.Duration) (string, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-p.gotFirst:
		return p.First(), nil
	case <-p.done:
		// The reader closes gotFirst before done: a line printed just
		// before the exit still counts.
		select {
		case <-p.gotFirst:
			return p.First(), nil
		default:
		}
		return "", fmt.Errorf("%s: %w", p.Name, ErrExited)
	case <-t.C:
		return "", fmt.Errorf("%s: %w in %v", p.Name, ErrNoLine, timeout)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Field returns the value of the first key=value among line's
// space-separated fields, "" when there is none.
func Field(line, key string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return ""
}
