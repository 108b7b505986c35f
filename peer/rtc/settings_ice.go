//go:build !js

package rtc

import (
	"time"

	"github.com/pion/webrtc/v4"
)

// How long the offering (controlling) ICE agent waits, from the start of
// its checks, before it may nominate a working pair of each type: a
// better pair (higher priority: host, then reflexive, then relay) that
// succeeds meanwhile is nominated instead. pion's defaults (srflx 0.5 s,
// prflx 1 s, relay 2 s) set the network lab's connection times: pairs
// through a full-cone and a symmetric NAT (host/prflx) took 1.05-1.2 s,
// relayed ones 2.0-2.3 s (`make bench-netlab`). A direct pair succeeds
// within a round trip or two of the checks (100-600 ms on the shaped
// lab), so these waits still leave a direct path the time to win.
const (
	prflxAcceptanceWait = 500 * time.Millisecond
	relayAcceptanceWait = 1 * time.Second
)

// tuneICE applies the waits above.
func tuneICE(se *webrtc.SettingEngine) {
	se.SetPrflxAcceptanceMinWait(prflxAcceptanceWait)
	se.SetRelayAcceptanceMinWait(relayAcceptanceWait)
}
