package server

import (
	"net"
	"net/netip"
)

// deniedPeerPrefixes are the peer networks a public TURN relay must not
// reach (RFC 6890 special-purpose ranges): this host, private and
// shared (CGNAT) networks, link-local, multicast, documentation and
// benchmark ranges, broadcast; the IPv6 counterparts, and IPv4 over
// IPv6 forms (NAT64, 6to4, Teredo) that would tunnel to them.
var deniedPeerPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
		"172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16",
		"198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
		"::/128", "::1/128", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/32", "2001:db8::/32",
		"2002::/16", "fc00::/7", "fe80::/10", "ff00::/8",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// DeniedPeerPrefixes returns the networks the embedded TURN server never
// relays to unless TURNConfig.AllowPeers names them (the same list goes
// into coturn's denied-peer-ip lines, CoturnConfig).
func DeniedPeerPrefixes() []netip.Prefix { return append([]netip.Prefix(nil), deniedPeerPrefixes...) }

// peerFilter decides which peer addresses a TURN allocation may send to
// and receive from: public unicast addresses other than the server's
// own, plus what allow lists (test networks, a LAN deployment).
type peerFilter struct {
	allow []netip.Prefix
	own   map[netip.Addr]bool
}

// newPeerFilter denies own (the server's addresses) besides the special
// ranges, and allows allow before anything else.
func newPeerFilter(allow []netip.Prefix, own []netip.Addr) *peerFilter {
	f := &peerFilter{allow: allow, own: map[netip.Addr]bool{}}
	for _, a := range own {
		f.own[a.Unmap()] = true
	}
	return f
}

// allowed reports whether ip may be a TURN peer.
func (f *peerFilter) allowed(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	ip = ip.Unmap().WithZone("")
	for _, p := range f.allow {
		if p.Contains(ip) {
			return true
		}
	}
	if f.own[ip] || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range deniedPeerPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// allowedAddr is allowed for a net.Addr (UDP or TCP).
func (f *peerFilter) allowedAddr(a net.Addr) bool {
	switch a := a.(type) {
	case *net.UDPAddr:
		return f.allowedIP(a.IP)
	case *net.TCPAddr:
		return f.allowedIP(a.IP)
	}
	return false
}

func (f *peerFilter) allowedIP(ip net.IP) bool {
	a, ok := netip.AddrFromSlice(ip)
	return ok && f.allowed(a)
}

// hostAddrs are this machine's interface addresses (the server's own,
// denied as peers: a relay must not reach services bound to them).
func hostAddrs() []netip.Addr {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []netip.Addr
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok {
				out = append(out, ip.Unmap())
			}
		}
	}
	return out
}
