package server

import (
	"net"
	"net/netip"
	"slices"
)

// Per-address TURN quotas. A quota per credential alone let one party
// drain the relay: credentials are minted per registration, and 63
// registrations took 998 of the 1,000 allocations in 1.2-1.6 s, so the
// next honest peer was refused (486). An allocation is now also charged
// to the addresses it comes from, and their /24 (IPv4) or /48 (IPv6)
// subnets: the TURN request's source address, and the client address of
// its user's signalling session (TieToSessions; behind a trusted proxy
// the address the proxy forwarded). The two are usually one address;
// where they differ both are charged, so that neither registering from
// many addresses and relaying from one, nor the reverse, escapes the
// bound. With the defaults (128 per address, 256 per subnet, 1,000 in
// all) three subnets hold at most 768 allocations and the rest stay for
// everyone else. Exempt networks (loopback by default: the demos and
// tests run many peers on one machine) are charged per credential and in
// all only. An allocation's charges end with it: when it expires, when
// its client deletes it, and when its user's session ends (Revoke).

// allocKeys are the addresses and subnets one allocation is charged to.
type allocKeys struct {
	ips     []netip.Addr
	subnets []netip.Prefix
}

// add adds ip (unless invalid, exempt or already there) and its subnet.
func (k *allocKeys) add(ip netip.Addr, exempt []netip.Prefix) {
	if !ip.IsValid() {
		return
	}
	ip = ip.Unmap().WithZone("")
	for _, p := range exempt {
		if p.Contains(ip) {
			return
		}
	}
	if !slices.Contains(k.ips, ip) {
		k.ips = append(k.ips, ip)
	}
	if s := subnetOf(ip); !slices.Contains(k.subnets, s) {
		k.subnets = append(k.subnets, s)
	}
}

// keysFor returns what an allocation of user's from src is charged to.
func (r *relays) keysFor(user string, src net.Addr) allocKeys {
	var k allocKeys
	if u, ok := src.(*net.UDPAddr); ok {
		k.add(u.AddrPort().Addr(), r.exempt)
	}
	if f := r.sessionAddr.Load(); f != nil {
		k.add((*f)(user), r.exempt)
	}
	return k
}

// allowsLocked reports whether user may have one more allocation charged
// to k, and whether an address quota is what refuses it (under r.mu).
func (r *relays) allowsLocked(user string, k allocKeys) (ok, byAddr bool) {
	if r.live >= r.total || len(r.byUser[user]) >= r.perUser {
		return false, false
	}
	for _, ip := range k.ips {
		if r.byIP[ip] >= r.perIP {
			return false, true
		}
	}
	for _, s := range k.subnets {
		if r.bySubnet[s] >= r.perSubnet {
			return false, true
		}
	}
	return true, false
}

// chargeLocked adds d (1 or -1) to k's counts (under r.mu).
func (r *relays) chargeLocked(k allocKeys, d int) {
	for _, ip := range k.ips {
		if r.byIP[ip] += d; r.byIP[ip] <= 0 {
			delete(r.byIP, ip)
		}
	}
	for _, s := range k.subnets {
		if r.bySubnet[s] += d; r.bySubnet[s] <= 0 {
			delete(r.bySubnet, s)
		}
	}
}

// refuse counts a quota refusal.
func (r *relays) refuse(byAddr bool) {
	r.quotaRefused.Add(1)
	if byAddr {
		r.addrQuotaRefused.Add(1)
	}
}
