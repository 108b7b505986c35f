//go:build !js

package rtc

import (
	"time"

	"github.com/pion/webrtc/v4"
)

// prflxAcceptanceWait is how long the offering (controlling) ICE agent
// waits, from the start of its checks, before it may nominate a working
// pair with a peer-reflexive side; a better pair (host) that succeeds
// meanwhile wins. pion's 1 s set the network lab's direct connections
// through a full-cone and a symmetric NAT (host/prflx) at 1.05-1.2 s;
// with 0.5 s they took 0.62-0.69 s (`make bench-netlab`), and at
// 200-600 ms round trips they still came out direct.
//
// Relayed pairs keep pion's 2 s: with 1 s, and with 1.5 s, pairs that
// could go direct (full cone to symmetric) were relayed at 200-600 ms
// round trips (2 and 3 of 4), their direct pair not yet confirmed.
const prflxAcceptanceWait = 500 * time.Millisecond

// tuneICE applies the wait above.
func tuneICE(se *webrtc.SettingEngine) {
	se.SetPrflxAcceptanceMinWait(prflxAcceptanceWait)
}
