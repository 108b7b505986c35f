//go:build cuttest

package netpeer

import (
	"encoding/hex"
	"os"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// A test-only partition (built with -tags cuttest; never in a release):
// when $PEERLEARN_TEST_CUT names a file, the peer drops every overlay
// message to or from the peers whose hex IDs that file lists (one per
// line), as if the network between them had failed; an absent or empty
// file heals the cut. The file is read at most every 100 ms. The WebRTC
// connections stay up: the transport closes them itself once the overlay
// no longer lists the peers as neighbours (its grace), as it would after
// a real partition.
var cutHook = struct {
	file    string
	checked time.Time
	blocked map[ident.Peer]bool
}{file: os.Getenv("PEERLEARN_TEST_CUT")}

// cutBlocked reports whether the test cut separates this peer from id.
// Only Run's loop calls it.
func (p *Peer) cutBlocked(id ident.Peer) bool {
	h := &cutHook
	if h.file == "" {
		return false
	}
	if now := time.Now(); now.Sub(h.checked) >= 100*time.Millisecond {
		h.checked = now
		h.blocked = map[ident.Peer]bool{}
		b, _ := os.ReadFile(h.file) // absent: no cut
		for _, line := range strings.Fields(string(b)) {
			var x ident.Peer
			if raw, err := hex.DecodeString(line); err == nil && len(raw) == len(x) {
				copy(x[:], raw)
				h.blocked[x] = true
			}
		}
	}
	return h.blocked[id]
}
