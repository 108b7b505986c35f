//go:build unix

package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func shell(t *testing.T) string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	return sh
}

func start(t *testing.T, o Options) *Proc {
	t.Helper()
	p, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return p
}

func TestFirstLineFieldsLinesAndChannel(t *testing.T) {
	lines := make(chan string, 1) // the second and third lines are dropped
	p := start(t, Options{Name: "sh", Bin: shell(t), Args: []string{"-c", "echo a=1 status=http://x id=ab; echo two; echo three; exec sleep 30"},
		Lines: lines, Keep: 2})
	first, err := p.WaitFirst(context.Background(), 10*time.Second)
	if err != nil || first != "a=1 status=http://x id=ab" {
		t.Fatalf("WaitFirst = %q, %v", first, err)
	}
	if p.Field("status") != "http://x" || p.Field("id") != "ab" || p.Field("x") != "" {
		t.Fatalf("fields %q %q %q", p.Field("status"), p.Field("id"), p.Field("x"))
	}
	if l := <-lines; l != first {
		t.Fatalf("channel line %q", l)
	}
	for deadline := time.Now().Add(10 * time.Second); len(p.Lines()) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Lines = %q", p.Lines())
		}
	}
	if got := strings.Join(p.Lines(), "|"); got != first+"|two" {
		t.Fatalf("Lines = %q (Keep is 2)", got)
	}
	if !p.Stop(10 * time.Second) {
		t.Fatal("sleep did not leave on SIGTERM")
	}
	if !p.Exited() {
		t.Fatal("Stop returned before the child exited")
	}
}

func TestWaitFirstExitedAndSilent(t *testing.T) {
	sh := shell(t)
	p := start(t, Options{Name: "quiet", Bin: sh, Args: []string{"-c", "exit 3"}})
	if _, err := p.WaitFirst(context.Background(), 10*time.Second); !errors.Is(err, ErrExited) {
		t.Fatalf("exited child: %v", err)
	}
	p = start(t, Options{Name: "silent", Bin: sh, Args: []string{"-c", "exec sleep 30"}})
	if _, err := p.WaitFirst(context.Background(), 50*time.Millisecond); !errors.Is(err, ErrNoLine) {
		t.Fatalf("silent child: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.WaitFirst(ctx, 10*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	// A line printed right before the exit still counts.
	p = start(t, Options{Name: "brief", Bin: sh, Args: []string{"-c", "echo bye"}})
	<-p.Done()
	if l, err := p.WaitFirst(context.Background(), time.Second); err != nil || l != "bye" {
		t.Fatalf("WaitFirst after exit = %q, %v", l, err)
	}
}

// A child that ignores SIGTERM is killed after the grace period; a
// stopped one is killable.
func TestStopKillsStubbornAndKillEndsStopped(t *testing.T) {
	sh := shell(t)
	p := start(t, Options{Name: "stubborn", Bin: sh, Args: []string{"-c", "trap '' TERM; echo ready; while :; do sleep 1; done"}})
	if _, err := p.WaitFirst(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if p.Stop(200 * time.Millisecond) {
		t.Fatal("Stop says a child that ignores SIGTERM left on it")
	}
	if !p.Exited() {
		t.Fatal("stubborn child still running after Stop")
	}
	p = start(t, Options{Name: "frozen", Bin: sh, Args: []string{"-c", "exec sleep 30"}})
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	p.Kill()
	if !p.Exited() {
		t.Fatal("Kill returned before the stopped child exited")
	}
}

func TestPrefixDirAndLogFile(t *testing.T) {
	sh := shell(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "child.log")
	// The prefix runs first: env sets a variable for the child.
	p := start(t, Options{Name: "child", Prefix: []string{"env", "PROC_TEST=prefixed"}, Bin: sh,
		Args: []string{"-c", `echo "$PROC_TEST $(pwd)"; echo to-stderr >&2`}, Dir: dir, LogPath: log})
	l, err := p.WaitFirst(context.Background(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	wantDir, _ := filepath.EvalSymlinks(dir)
	if got := strings.Fields(l); len(got) != 2 || got[0] != "prefixed" || got[1] != wantDir {
		t.Fatalf("line %q, want prefixed %s", l, wantDir)
	}
	<-p.Done()
	if b, err := os.ReadFile(log); err != nil || string(b) != "to-stderr\n" {
		t.Fatalf("log %q, %v", b, err)
	}
	if p.Tail(4) != "err\n" {
		t.Fatalf("Tail(4) = %q", p.Tail(4))
	}
}

func TestMemoryLogKeepsTheTail(t *testing.T) {
	sh := shell(t)
	// 100 KiB of stderr, then a marker: the in-memory log keeps the last 64 KiB.
	p := start(t, Options{Name: "chatty", Bin: sh, Args: []string{"-c", "head -c 102400 /dev/zero | tr '\\0' x >&2; echo END >&2"}})
	<-p.Done()
	all := p.Tail(1 << 20)
	if len(all) != MemLogSize || !strings.HasSuffix(all, "xEND\n") {
		t.Fatalf("memory log: %d bytes, ends %q", len(all), all[max(0, len(all)-8):])
	}
	if p.Log != "" {
		t.Fatalf("Log = %q with no LogPath", p.Log)
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 4}
	for _, s := range []string{"ab", "cd", "e", "fghij", "k"} {
		b.Write([]byte(s))
	}
	if got := string(b.bytes()); got != "hijk" {
		t.Fatalf("tail %q", got)
	}
}

func TestStartMissingBinary(t *testing.T) {
	if _, err := Start(Options{Name: "nothing", Bin: filepath.Join(t.TempDir(), "absent")}); err == nil {
		t.Fatal("started a missing binary")
	}
}
