package proctest

import (
	"strings"
	"testing"
	"time"
)

// Peer is a running `peerlearn peer` with what its first line told.
type Peer struct {
	*Proc
	Status string // the status URL
	ID     string // the hex peer ID
}

// StartPeer runs `peerlearn peer` (bin) with args and waits up to 10 s
// for its first stdout line, which must carry status= and id=.
func StartPeer(t testing.TB, bin, name string, args []string) *Peer {
	t.Helper()
	lines := make(chan string, 16)
	p := &Peer{Proc: Start(t, name, bin, args, lines)}
	select {
	case l := <-lines:
		for _, f := range strings.Fields(l) {
			if v, ok := strings.CutPrefix(f, "status="); ok {
				p.Status = v
			}
			if v, ok := strings.CutPrefix(f, "id="); ok {
				p.ID = v
			}
		}
	case <-p.done:
		t.Fatalf("%s exited at start", name)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s printed nothing", name)
	}
	if p.Status == "" || p.ID == "" {
		t.Fatalf("%s: no status URL or ID", name)
	}
	return p
}
