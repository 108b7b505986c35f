//go:build hostile

package rtc

import "github.com/peerlearn/peerlearn/types/ident"

// SendFrame sends frame to peer to as it is, unchecked and unsigned by
// this peer: on the open channel, queued while connecting, or starting
// a connection. It exists only in builds with -tags hostile, for the
// tools that play a hostile peer against a live one (`peerlearn bench
// abuse`, built so by scripts/bench-abuse.sh): a peer's own API cannot
// send a forged or unsigned frame.
func (m *Manager) SendFrame(to ident.Peer, frame []byte) error {
	return m.sendFrame(to, frame, true, false)
}
