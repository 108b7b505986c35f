package server

import (
	"fmt"
	"net/netip"
	"strings"
)

// CoturnOptions describe an external coturn TURN server (Debian's
// coturn package) for larger deployments: it checks the same TURN REST
// credentials the signalling server hands out (TURNAuth with the same
// Secret and its URL), denies the same peer networks as the embedded
// server, and applies quotas and a bandwidth cap.
type CoturnOptions struct {
	// ListenIP and Port are where clients reach it (port 3478 usually).
	ListenIP string
	Port     int
	// RelayIP is the local address relays bind; ExternalIP, if set, the
	// public one announced behind NAT.
	RelayIP, ExternalIP string
	// MinPort and MaxPort bound the relay ports.
	MinPort, MaxPort int
	// Realm and Secret: Secret is TURNAuth.Secret (static-auth-secret).
	Realm, Secret string
	// AllowPeers are peer networks allowed although denied (test
	// networks; loopback ones also turn on allow-loopback-peers).
	AllowPeers []netip.Prefix
	// UserQuota and TotalQuota bound live allocations per credential
	// user and in all; MaxBPS caps one session's bytes per second.
	UserQuota, TotalQuota int
	MaxBPS                int64
	// Extra lines (pidfile=..., log-file=..., userdb=...).
	Extra []string
}

// DefaultCoturnOptions matches DefaultTURNConfig's limits.
func DefaultCoturnOptions(secret string) CoturnOptions {
	d := DefaultTURNConfig()
	return CoturnOptions{
		ListenIP: "0.0.0.0", Port: 3478, MinPort: 49152, MaxPort: 65535,
		Realm: d.Realm, Secret: secret,
		UserQuota: d.MaxAllocationsPerUser, TotalQuota: d.MaxAllocations, MaxBPS: d.AllocationBytesPerSecond,
	}
}

// CoturnConfig renders o as a turnserver.conf (turnserver -c FILE).
func CoturnConfig(o CoturnOptions) string {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("# PeerLearn TURN: TURN REST credentials from the signalling server (same secret)")
	line("listening-ip=%s", o.ListenIP)
	line("listening-port=%d", o.Port)
	if o.RelayIP != "" {
		line("relay-ip=%s", o.RelayIP)
	}
	if o.ExternalIP != "" {
		line("external-ip=%s", o.ExternalIP)
	}
	line("min-port=%d", o.MinPort)
	line("max-port=%d", o.MaxPort)
	line("realm=%s", o.Realm)
	line("use-auth-secret")
	line("static-auth-secret=%s", o.Secret)
	line("fingerprint")
	line("no-tcp-relay")
	line("no-multicast-peers")
	line("no-cli")
	line("no-tls")
	line("no-dtls")
	line("user-quota=%d", o.UserQuota)
	line("total-quota=%d", o.TotalQuota)
	line("max-bps=%d", o.MaxBPS)
	line("# peers never relayed to (RFC 6890 special-purpose ranges)")
	for _, p := range deniedPeerPrefixes {
		line("denied-peer-ip=%s", ipRange(p))
	}
	loop := false
	for _, p := range o.AllowPeers {
		line("allowed-peer-ip=%s", ipRange(p))
		loop = loop || p.Addr().IsLoopback()
	}
	if loop {
		line("allow-loopback-peers")
	}
	for _, e := range o.Extra {
		line("%s", e)
	}
	return b.String()
}

// ipRange writes a prefix as coturn's "first-last" range.
func ipRange(p netip.Prefix) string {
	p = p.Masked()
	first := p.Addr()
	last := first.AsSlice()
	for i := p.Bits(); i < len(last)*8; i++ {
		last[i/8] |= 0x80 >> (i % 8)
	}
	l, _ := netip.AddrFromSlice(last)
	if l == first {
		return first.String()
	}
	return first.String() + "-" + l.String()
}
