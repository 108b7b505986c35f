package server

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// Client addresses behind a reverse proxy. Behind the proxy DEPLOY.md
// recommends every connection comes from the proxy's address, so the
// per-address admission and handshake limits saw one client and the
// loopback exemption let it through unlimited (2,500 of 2,500 admissions
// in 7.6 s from one client). With ProxyTrust the server takes the client
// address from the proxy's header, but only on connections from a
// trusted proxy: a header from anyone else is the client's own word and
// is ignored.
//
// X-Forwarded-For is a list each proxy appends its TCP peer to, so the
// right-most entry was written by the trusted proxy the connection came
// from; walking leftwards over further trusted proxies, the first
// untrusted address is the client (entries left of it were written by
// the client itself and are ignored). X-Real-IP holds one address the
// proxy sets. The operator names the header the proxy writes: the other
// one is whatever the client sent, passed through unchanged (nginx
// passes request headers on unless told otherwise), so trusting both
// would let a client pick its address.

// Proxy headers ProxyTrust.Header may name.
const (
	HeaderForwardedFor = "X-Forwarded-For"
	HeaderRealIP       = "X-Real-IP"
)

// ProxyTrust configures which connections' proxy headers are believed.
type ProxyTrust struct {
	// Proxies are the networks of trusted reverse proxies (the proxy on
	// this machine: 127.0.0.1/32). Empty: no proxy is trusted and the
	// client address is always the TCP peer's.
	Proxies []netip.Prefix
	// Header is the header the proxies set: HeaderForwardedFor (append
	// to it or overwrite it) or HeaderRealIP (overwrite it).
	Header string
}

// DefaultProxyTrust trusts no proxy.
func DefaultProxyTrust() ProxyTrust {
	return ProxyTrust{Proxies: nil, Header: HeaderForwardedFor}
}

func (p ProxyTrust) validate() error {
	if p.Header != HeaderForwardedFor && p.Header != HeaderRealIP {
		return fmt.Errorf("%w: proxy header %q: want %s or %s", ErrConfig, p.Header, HeaderForwardedFor, HeaderRealIP)
	}
	for _, pr := range p.Proxies {
		if !pr.IsValid() {
			return fmt.Errorf("%w: trusted proxy network %v", ErrConfig, pr)
		}
	}
	return nil
}

// trusted reports whether ip is a trusted proxy's.
func (p ProxyTrust) trusted(ip netip.Addr) bool {
	for _, pr := range p.Proxies {
		if pr.Contains(ip) {
			return true
		}
	}
	return false
}

// clientIP returns the client address of a request from remote (its
// RemoteAddr) with header h: remote's own, unless remote is a trusted
// proxy, then the address the proxy's header names. forwarded says the
// address came from the header; missing, that a trusted proxy sent no
// usable header (the client address is then the proxy's own).
func (p ProxyTrust) clientIP(remote string, h http.Header) (ip netip.Addr, forwarded, missing bool) {
	peer := remoteIP(remote)
	if !peer.IsValid() || !p.trusted(peer) {
		return peer, false, false
	}
	switch p.Header {
	case HeaderForwardedFor:
		var hops []string
		for _, v := range h.Values(HeaderForwardedFor) {
			hops = append(hops, strings.Split(v, ",")...)
		}
		last := peer // the nearest trusted hop so far
		for i := len(hops) - 1; i >= 0; i-- {
			hop, ok := parseHop(hops[i])
			if !ok {
				// Written by the trusted hop to its right (its peer was
				// a unix socket, "unknown", ...): that hop is as far as
				// the chain can be followed.
				return last, last != peer, last == peer
			}
			if !p.trusted(hop) {
				return hop, true, false
			}
			last = hop
		}
		return last, last != peer, last == peer
	case HeaderRealIP:
		if vs := h.Values(HeaderRealIP); len(vs) == 1 {
			if ip, ok := parseHop(vs[0]); ok {
				return ip, true, false
			}
		}
	}
	return peer, false, true
}

// parseHop parses one proxy header entry: an address, with or without a
// port ("192.0.2.1", "192.0.2.1:443", "2001:db8::1", "[2001:db8::1]:443").
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")); err == nil {
		return ip.Unmap().WithZone(""), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	return netip.Addr{}, false
}

// overlapsAny reports whether any of ps overlaps a trusted proxy network.
func (p ProxyTrust) overlapsAny(ps []netip.Prefix) (netip.Prefix, bool) {
	for _, e := range ps {
		for _, pr := range p.Proxies {
			if e.Overlaps(pr) {
				return e, true
			}
		}
	}
	return netip.Prefix{}, false
}
