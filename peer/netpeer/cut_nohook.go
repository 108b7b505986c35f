//go:build !cuttest

package netpeer

import "github.com/peerlearn/peerlearn/types/ident"

// cutBlocked is the test-only partition hook (cut_hook.go, -tags
// cuttest); without the tag nothing is ever cut.
func (p *Peer) cutBlocked(ident.Peer) bool { return false }
