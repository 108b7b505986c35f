package server

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/peerlearn/peerlearn/signal"
)

// AddrLimits bound what one client address and one subnet may hold, so
// that one machine (or one /24) cannot take the server's handshake slots
// or a task's peer slots from everyone else. A subnet is an IPv4 /24 or
// an IPv6 /48 (SubnetBits); loopback addresses are each their own subnet
// (they are processes of this machine, and the benchmarks use 127.0.0.2
// as the attacker's address and 127.0.0.1 as the honest one's).
//
// Behind a reverse proxy every client has the proxy's address unless the
// proxy is trusted (Config.Proxies): then the address it forwards.
type AddrLimits struct {
	// HandshakesPerIP and HandshakesPerSubnet bound the unregistered
	// connections (websockets without a valid hello yet) per address and
	// per subnet; more are refused with HTTP 429.
	HandshakesPerIP, HandshakesPerSubnet int
	// PeersPerIP and PeersPerSubnet bound the registered peers of one task
	// per address and per subnet; further hellos are refused with
	// CodeTaskFull.
	PeersPerIP, PeersPerSubnet int
	// TaskShare is the largest fraction of a task's MaxPeers one address
	// or one subnet may hold (at least one peer), whatever PeersPer*
	// says: a small task cannot be filled from one subnet either.
	TaskShare float64
	// SubnetBitsIPv4 and SubnetBitsIPv6 are the subnet prefix lengths.
	SubnetBitsIPv4, SubnetBitsIPv6 int
	// Exempt lists networks whose clients none of these limits apply to
	// (the global MaxHandshakes and MaxPeers still do). The default is
	// loopback, for the demos and tests that run many peers on one
	// machine; set it to nil to limit loopback per address as well.
	Exempt []netip.Prefix
}

// DefaultAddrLimits: generous enough for a classroom behind one NAT
// address, small enough that one address keeps at most a third of a
// default task (100 peers) and of the server's 64 handshake slots.
func DefaultAddrLimits() AddrLimits {
	return AddrLimits{
		HandshakesPerIP:     8,   // a browser opens one; a NAT of a few dozen joining at once
		HandshakesPerSubnet: 24,  // three subnets cannot take all 64 slots
		PeersPerIP:          32,  // a classroom behind one address
		PeersPerSubnet:      64,  // a campus /24
		TaskShare:           0.5, // of each task's MaxPeers
		SubnetBitsIPv4:      24,
		SubnetBitsIPv6:      48,
		Exempt:              LoopbackPrefixes(),
	}
}

// LoopbackPrefixes are 127.0.0.0/8 and ::1/128.
func LoopbackPrefixes() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}

// clientAddr is a client's address and subnet; the zero value (exempt or
// unparsable address) is not limited.
type clientAddr struct {
	ip     netip.Addr
	subnet netip.Prefix
}

func (c clientAddr) limited() bool { return c.ip.IsValid() }

// clientOf maps a request's RemoteAddr to its address and subnet.
func (l *AddrLimits) clientOf(remote string) clientAddr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return clientAddr{}
	}
	return l.clientOfIP(ip)
}

// clientOfIP maps a client address to itself and its subnet.
func (l *AddrLimits) clientOfIP(ip netip.Addr) clientAddr {
	if !ip.IsValid() {
		return clientAddr{}
	}
	ip = ip.Unmap().WithZone("")
	for _, p := range l.Exempt {
		if p.Contains(ip) {
			return clientAddr{}
		}
	}
	bits := l.SubnetBitsIPv6
	switch {
	case ip.IsLoopback():
		bits = ip.BitLen()
	case ip.Is4():
		bits = l.SubnetBitsIPv4
	}
	subnet, err := ip.Prefix(bits)
	if err != nil {
		return clientAddr{}
	}
	return clientAddr{ip: ip, subnet: subnet}
}

// taskCap is the per-address (or per-subnet) peer limit in a task of
// taskMax peers.
func (l *AddrLimits) taskCap(limit, taskMax int) int {
	return min(limit, max(1, int(l.TaskShare*float64(taskMax))))
}

// addrCounts counts something per address and per subnet (guarded by
// Server.mu).
type addrCounts struct {
	ip     map[netip.Addr]int
	subnet map[netip.Prefix]int
}

func newAddrCounts() addrCounts {
	return addrCounts{ip: map[netip.Addr]int{}, subnet: map[netip.Prefix]int{}}
}

func (a addrCounts) add(c clientAddr, d int) {
	if !c.limited() {
		return
	}
	a.ip[c.ip] += d
	if a.ip[c.ip] <= 0 {
		delete(a.ip, c.ip)
	}
	a.subnet[c.subnet] += d
	if a.subnet[c.subnet] <= 0 {
		delete(a.subnet, c.subnet)
	}
}

// over reports whether one more for c would pass perIP or perSubnet.
func (a addrCounts) over(c clientAddr, perIP, perSubnet int) (ipOver, subnetOver bool) {
	if !c.limited() {
		return false, false
	}
	return a.ip[c.ip] >= perIP, a.subnet[c.subnet] >= perSubnet
}

// addrAllows checks AddrLimits for sess registering in ts (old: the
// connection it replaces, if any, not counted against it). Called with
// Server.mu held.
func (s *Server) addrAllows(ts *taskState, sess, old *session) (signal.Code, string) {
	a := sess.addr
	if !a.limited() {
		return 0, ""
	}
	l := &s.cfg.AddrLimits
	nIP, nSubnet := ts.addrs.ip[a.ip], ts.addrs.subnet[a.subnet]
	if old != nil && old.task == ts && old.countedPeer {
		if old.addr.ip == a.ip {
			nIP--
		}
		if old.addr.subnet == a.subnet {
			nSubnet--
		}
	}
	ipOver := nIP >= l.taskCap(l.PeersPerIP, ts.spec.MaxPeers)
	subnetOver := nSubnet >= l.taskCap(l.PeersPerSubnet, ts.spec.MaxPeers)
	if !ipOver && !subnetOver {
		return 0, ""
	}
	s.counters.addrRefuse(limitPeersIP, ipOver, subnetOver)
	return signal.CodeTaskFull, fmt.Sprintf("task %v has %d peers from your address, %d from its subnet", ts.id, nIP, nSubnet)
}
