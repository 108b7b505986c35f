package rtc

import "github.com/pion/webrtc/v4"

// Overlay frames travel on a second data channel of their own, unordered
// (still reliable). On one ordered channel a heartbeat or Link that is
// lost and retransmitted, or that waits behind model chunks at the
// receiver, holds up every overlay frame behind it, and the failure
// detector then sees a long silence from a live neighbour. NDMP needs no
// order (each message stands alone; its property test reorders), and the
// replay window (replay.go) takes frames out of order. In the overlay
// simulator, at 350 ms mean exponential latency with 100 of 400 nodes
// failing, per-message delays without ordering took recovery from
// 9.7-11.0 s to 7.2-9.1 s over seeds 1-5 (docs/RESULTS.md).
//
// Both sides create it before the offer and the answer, negotiated out
// of band on a fixed stream (no DCEP open message): with an in-band open
// the first unordered frames can overtake the ordered open message and
// be dropped by the receiver, which was seen here as frames, and the
// main channel's behind them, arriving seconds late. Until it opens (or
// if it fails) overlay frames go on the main channel, as everything did
// before.
const (
	ctlLabel = "peerlearn-ctl"
	// ctlStream is the channel's SCTP stream: above the ones the main
	// channel's in-band open takes (0 or 1, by DTLS role) and under the
	// 1024 streams browsers offer.
	ctlStream = 100
)

// createCtl creates c's overlay channel on pc.
func (m *Manager) createCtl(c *conn, pc *webrtc.PeerConnection) error {
	ordered, negotiated, id := false, true, uint16(ctlStream)
	dc, err := pc.CreateDataChannel(ctlLabel, &webrtc.DataChannelInit{Ordered: &ordered, Negotiated: &negotiated, ID: &id})
	if err != nil {
		return err
	}
	m.setupCtl(c, dc)
	return nil
}

// setupCtl installs the overlay channel's handlers: messages go through
// the same path as the main channel's; opening makes it the way overlay
// frames are written (write). Its closing is not a failure of the
// connection: the main channel's is.
func (m *Manager) setupCtl(c *conn, dc *webrtc.DataChannel) {
	dc.OnMessage(m.onChannelMessage(c))
	dc.OnOpen(func() {
		c.sendMu.Lock()
		c.ctl = dc
		c.sendMu.Unlock()
	})
}
