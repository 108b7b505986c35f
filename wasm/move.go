//go:build js && wasm

package main

import (
	"encoding/hex"

	"github.com/peerlearn/peerlearn/types/key"
)

// Moving away from a captured neighbourhood (options.healthMoves,
// docs/SECURITY.md "Neighbourhood health"): netpeer moves the tab as it
// moves a native peer (peer/netpeer/move.go: a new key admitted anew,
// Leave to the old neighbours, the learner kept under the new ID) and
// hands the new key to moved. From then on the tab is that key: its
// status, its exported session (resume.go: a record carries the seed of
// the key it was saved under, so the page never pairs a model with a
// stale key) and a later join in this tab use it, and the page hears a
// "moved" event with the new seed, which it keeps instead of the old
// one (web/app.js, web/resume.js), so that a reload resumes the session
// under the new key rather than going back to the place it left.

// moved is netpeer.Config.OnMove: it runs on the peer's loop, between
// two trainings, after the move; it must not block.
func (b *browserPeer) moved(k key.Pair) {
	b.mu.Lock()
	old := b.id
	b.identity, b.id = k, k.ID()
	b.mu.Unlock()
	b.logf("moved from %v to %v: a new key, admitted anew; the model and its round are kept", old, k.ID())
	b.emit(map[string]any{"type": "moved", "id": k.ID().Hex(), "previous": old.Hex(), "seed": hex.EncodeToString(k.Seed())})
}
