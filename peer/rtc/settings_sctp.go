//go:build !js

package rtc

import (
	"time"

	"github.com/pion/webrtc/v4"
)

// SCTP congestion control for home links with random loss. pion's SCTP
// follows RFC 4960: each loss halves the congestion window, a timeout
// drops it to one packet, and the retransmission timer doubles up to a
// minute. On a path with 100-300 ms round trips and ~2% loss each way
// (a lossy home uplink, the network lab's shaped links) that left a data
// channel at a few KB/s: a 1 MiB transfer through the lab's TURN relay
// did not finish in a minute, so model transfers, their results and the
// routed offers behind them timed out (docs/RESULTS.md, netlab). With the
// floor and cap below the same transfer took 7 s (0.2 MB/s).
const (
	// sctpMinCwnd is the congestion window's floor: about 55 packets,
	// 64 KiB in flight, however many losses (0.2-0.3 MB/s at 250 ms).
	sctpMinCwnd = 64 << 10
	// sctpFastRtxWnd is how much a fast retransmission may resend at
	// once (pion's default: one packet): several losses in one window
	// are repaired in one round trip, not one per round trip.
	sctpFastRtxWnd = 64 << 10
	// sctpRTOMax caps the retransmission timer's back-off: ICE
	// liveness (ICEFailedTimeout) already notices a dead path, so a
	// longer back-off only stalls a live, lossy one.
	sctpRTOMax = 3 * time.Second
)

// tuneSCTP applies the constants above.
func tuneSCTP(se *webrtc.SettingEngine) {
	se.SetSCTPMinCwnd(sctpMinCwnd)
	se.SetSCTPFastRtxWnd(sctpFastRtxWnd)
	se.SetSCTPRTOMax(sctpRTOMax)
}
