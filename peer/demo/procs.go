package demo

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/peerlearn/peerlearn/internal/proc"
)

// child is a process the demo started, its stderr in logDir/name.log, in
// a process group of its own: a Ctrl-C at the terminal reaches only the
// demo, which then stops its children in order.
type child struct {
	*proc.Proc
	lines  chan string // stdout lines (dropped when nobody reads)
	status string      // peers: the status URL from the first line
	id     string      // peers: the hex ID from the first line
}

func startChild(name, logDir, bin string, args ...string) (*child, error) {
	lines := make(chan string, 16)
	p, err := proc.Start(proc.Options{Name: name, Bin: bin, Args: args,
		LogPath: filepath.Join(logDir, name+".log"), Lines: lines, OwnGroup: true, DieWithParent: true})
	if err != nil {
		return nil, err
	}
	return &child{Proc: p, lines: lines}, nil
}

// waitFirstLine reads the peer's first stdout line, which names its ID and
// status URL ("... id=HEX status=URL ...").
func (c *child) waitFirstLine(ctx context.Context, timeout time.Duration) error {
	l, err := c.WaitFirst(ctx, timeout)
	switch {
	case errors.Is(err, proc.ErrExited), errors.Is(err, proc.ErrNoLine):
		return fmt.Errorf("%w (log: %s)", err, c.Log)
	case err != nil:
		return err
	}
	c.status, c.id = proc.Field(l, "status"), proc.Field(l, "id")
	if c.status == "" || c.id == "" {
		return fmt.Errorf("%s: first line %q names no id= and status=", c.Name, l)
	}
	return nil
}
