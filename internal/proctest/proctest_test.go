package proctest

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestTail(t *testing.T) {
	if got := Tail([]byte("abcdef"), 3); got != "...def" {
		t.Fatalf("Tail = %q", got)
	}
	if got := Tail([]byte("ab"), 3); got != "ab" {
		t.Fatalf("Tail = %q", got)
	}
}

func TestFreeAddr(t *testing.T) {
	addr := FreeAddr(t)
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("FreeAddr = %q", addr)
	}
}

func TestStartLinesAndStop(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	lines := make(chan string, 1)
	p := Start(t, "sh", sh, []string{"-c", "echo status=http://x id=ab; exec sleep 30"}, lines)
	select {
	case l := <-lines:
		if l != "status=http://x id=ab" {
			t.Fatalf("line %q", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no line")
	}
	p.Stop(t)
	select {
	case <-p.Done():
	default:
		t.Fatal("Stop returned before the process exited")
	}
}

func TestStartPeerReadsFirstLine(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	p := StartPeer(t, sh, "peer", []string{"-c", "echo listening status=http://127.0.0.1:1/status id=abcd; exec sleep 30"})
	if p.Status != "http://127.0.0.1:1/status" || p.ID != "abcd" {
		t.Fatalf("Status %q, ID %q", p.Status, p.ID)
	}
	p.Kill()
}
