package proctest

import (
	"context"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proc"
)

// Peer is a running `peerlearn peer` with what its first line told.
type Peer struct {
	*Proc
	Status string // the status URL
	ID     string // the hex peer ID
}

// StartPeer runs `peerlearn peer` (bin) with args, and env (NAME=value)
// added to its environment (StartEnv), and waits up to 10 s for its
// first stdout line, which must carry status= and id=.
func StartPeer(t testing.TB, bin, name string, args []string, env ...string) *Peer {
	t.Helper()
	p := &Peer{Proc: StartEnv(t, name, bin, args, env, nil)}
	l, err := p.WaitFirst(context.Background(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p.Status, p.ID = proc.Field(l, "status"), proc.Field(l, "id")
	if p.Status == "" || p.ID == "" {
		t.Fatalf("%s: no status URL or ID", name)
	}
	return p
}
