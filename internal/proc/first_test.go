//go:build unix

package proc

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWaitFirstExitedAndSilent(t *testing.T) {
	quiet := startShell(t, "quiet", "exit 3", Options{})
	if _, err := quiet.WaitFirst(context.Background(), 10*time.Second); !errors.Is(err, ErrExited) {
		t.Fatalf("exited child: %v", err)
	}
	silent := startShell(t, "silent", "exec sleep 30", Options{})
	if _, err := silent.WaitFirst(context.Background(), 50*time.Millisecond); !errors.Is(err, ErrNoLine) {
		t.Fatalf("silent child: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := silent.WaitFirst(ctx, 10*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	// A line printed right before the exit still counts.
	brief := startShell(t, "brief", "echo bye", Options{})
	<-brief.Done()
	if l, err := brief.WaitFirst(context.Background(), time.Second); err != nil || l != "bye" {
		t.Fatalf("WaitFirst after exit = %q, %v", l, err)
	}
}
