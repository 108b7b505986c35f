//go:build !js

package rtc

import (
	"net"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
)

// newAPI builds the pion API for a native peer: ICE liveness timeouts, no
// mDNS, and with LoopbackOnly only 127.0.0.1 UDP4 host candidates.
func newAPI(cfg Config) *webrtc.API {
	var se webrtc.SettingEngine
	se.SetICETimeouts(cfg.ICEDisconnectedTimeout, cfg.ICEFailedTimeout, cfg.ICEKeepalive)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	if cfg.LoopbackOnly {
		se.SetIncludeLoopbackCandidate(true)
		se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() && ip.To4() != nil })
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	}
	return webrtc.NewAPI(webrtc.WithSettingEngine(se))
}
