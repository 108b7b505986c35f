//go:build unix

package proc

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
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

func TestWaitLog(t *testing.T) {
	re := regexp.MustCompile(`listening on (\S+) `)
	for _, o := range []Options{{}, {LogPath: filepath.Join(t.TempDir(), "child.log")}} {
		late := startShell(t, "late", "echo starting >&2; sleep 0.2; echo 'listening on 127.0.0.1:4242 (x)' >&2; exec sleep 30", o)
		if m, err := late.WaitLog(context.Background(), 10*time.Second, re); err != nil || m[1] != "127.0.0.1:4242" {
			t.Fatalf("log %q: WaitLog = %q, %v", o.LogPath, m, err)
		}
	}
	// A line written right before the exit still counts; none is ErrExited.
	brief := startShell(t, "brief", "echo 'listening on [::1]:7 .' >&2", Options{})
	<-brief.Done()
	if m, err := brief.WaitLog(context.Background(), time.Second, re); err != nil || m[1] != "[::1]:7" {
		t.Fatalf("WaitLog after exit = %q, %v", m, err)
	}
	quiet := startShell(t, "quiet", "echo 'bind: address in use' >&2; exit 1", Options{})
	if _, err := quiet.WaitLog(context.Background(), 10*time.Second, re); !errors.Is(err, ErrExited) {
		t.Fatalf("exited child: %v", err)
	}
	silent := startShell(t, "silent", "exec sleep 30", Options{})
	if _, err := silent.WaitLog(context.Background(), 50*time.Millisecond, re); !errors.Is(err, ErrNoLine) {
		t.Fatalf("silent child: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := silent.WaitLog(ctx, 10*time.Second, re); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
}
