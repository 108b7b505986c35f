//go:build !js

package rtc

import (
	"net"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
)

// newAPI builds the pion API for a native peer: ICE liveness timeouts and,
// with LoopbackOnly, only 127.0.0.1 UDP4 host candidates and no mDNS
// (single-machine runs and tests). Otherwise the peer advertises its real
// interfaces (pion leaves loopback out) and resolves the `.local` host
// candidates a browser without camera or microphone permission offers:
// pion's mDNS query mode, which never publishes names of its own.
func newAPI(cfg Config) *webrtc.API {
	var se webrtc.SettingEngine
	se.SetICETimeouts(cfg.ICEDisconnectedTimeout, cfg.ICEFailedTimeout, cfg.ICEKeepalive)
	tuneSCTP(&se)
	tuneICE(&se)
	if cfg.LoopbackOnly {
		se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
		se.SetIncludeLoopbackCandidate(true)
		se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() && ip.To4() != nil })
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
		return webrtc.NewAPI(webrtc.WithSettingEngine(se))
	}
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeQueryOnly)
	// Every peer connection opens its own mDNS socket on
	// 224.0.0.251:5353; without address reuse only the first of a
	// process (and of a host) gets one and the others silently drop
	// every `.local` candidate.
	if n, err := sharedMDNSNet(); err == nil {
		se.SetNet(n)
	}
	// IPv6 only where the host has it: pion's mDNS needs a socket for
	// each IP version it gathers, and without IPv6 it silently resolves
	// nothing at all.
	types := []webrtc.NetworkType{webrtc.NetworkTypeUDP4}
	if hasIPv6() {
		types = append(types, webrtc.NetworkTypeUDP6)
	}
	se.SetNetworkTypes(types)
	return webrtc.NewAPI(webrtc.WithSettingEngine(se))
}

// hasIPv6 reports whether an interface that is up has a global or
// link-local IPv6 address (not loopback).
func hasIPv6() bool {
	ifs, err := net.Interfaces()
	if err != nil {
		return false
	}
	for _, i := range ifs {
		if i.Flags&net.FlagUp == 0 || i.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := i.Addrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() == nil && n.IP.To16() != nil {
				return true
			}
		}
	}
	return false
}
