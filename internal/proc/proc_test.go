//go:build unix

package proc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFirstLineFieldsLinesAndChannel(t *testing.T) {
	lines := make(chan string, 1) // the second and third lines are dropped
	p := startShell(t, "printer", "echo a=1 status=http://x id=ab; echo two; echo three; exec sleep 30", Options{Lines: lines, Keep: 2})
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
	// Polls (bounded): the child's second line arrives when the OS delivers it.
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

func TestPrefixDirAndLogFile(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "child.log")
	// The prefix runs first: env sets a variable for the child.
	p := startShell(t, "child", `echo "$PROC_TEST $(pwd)"; echo to-stderr >&2`,
		Options{Prefix: []string{"env", "PROC_TEST=prefixed"}, Dir: dir, LogPath: log})
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
	// 100 KiB of stderr, then a marker: the in-memory log keeps the last 64 KiB.
	p := startShell(t, "chatty", "head -c 102400 /dev/zero | tr '\\0' x >&2; echo END >&2", Options{})
	<-p.Done()
	all := p.Tail(1 << 20)
	if len(all) != MemLogSize || !strings.HasSuffix(all, "xEND\n") {
		t.Fatalf("memory log: %d bytes, ends %q", len(all), all[max(0, len(all)-8):])
	}
	if p.Log != "" {
		t.Fatalf("Log = %q with no LogPath", p.Log)
	}
}

func TestStartMissingBinary(t *testing.T) {
	if _, err := Start(Options{Name: "nothing", Bin: filepath.Join(t.TempDir(), "absent")}); err == nil {
		t.Fatal("started a missing binary")
	}
}
