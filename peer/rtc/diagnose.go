package rtc

import (
	"strings"
)

// Why a connection failed, in words a volunteer can act on (issue #27):
// a failed connection alone says nothing about the missing relay or the
// NAT. Diagnose reads what ICE knew when the connection failed: the ICE
// servers the signalling server offered, the candidates each side
// gathered (both are in the SDPs: signalling is not trickled) and the
// public mappings STUN servers reported.

// Diagnosis causes (Diagnosis.Cause).
const (
	CauseNoLocalCandidates  = "no-local-candidates"  // this peer gathered no address at all
	CauseNoRemoteCandidates = "no-remote-candidates" // the other peer sent no address
	CauseNoICEServers       = "no-ice-servers"       // the server offered neither STUN nor TURN
	CauseSTUNUnanswered     = "stun-unanswered"      // STUN offered, no public mapping came back
	CauseRelayUnavailable   = "relay-unavailable"    // TURN offered, no relayed address came back
	CauseSymmetricNAT       = "symmetric-nat"        // STUN servers saw different mappings, no relay offered
	CauseNoRelayOffered     = "no-relay-offered"     // mapped but not reachable, and no relay offered
	CauseRemoteUnreachable  = "remote-unreachable"   // a relay was there and still nothing got through
)

// Diagnosis is the likely cause of a failed connection.
type Diagnosis struct {
	Cause string `json:"cause"` // one of the Cause constants
	Why   string `json:"why"`   // a sentence for a volunteer
}

// Candidates counts candidates by type.
type Candidates struct {
	Host, Srflx, Prflx, Relay int
}

// Total is the number of candidates.
func (c Candidates) Total() int { return c.Host + c.Srflx + c.Prflx + c.Relay }

// Mapping is a server-reflexive candidate: the public address a STUN
// server saw for the local base address.
type Mapping struct {
	Base, Public string // "ip:port"
}

// ICEOffer summarises the ICE servers a peer was given.
type ICEOffer struct {
	STUN, TURN int // URLs of each kind
}

// FailedConnection is what is known about a failed connection.
type FailedConnection struct {
	Offered ICEOffer
	Local   Candidates // gathered by this peer
	Remote  Candidates // received from the other peer
	// Mappings are this peer's server-reflexive candidates; a base seen
	// at two public addresses means a symmetric NAT (a mapping per
	// destination). May be empty.
	Mappings []Mapping
}

// Diagnose maps a failed connection to its most likely cause. The order
// matters: a cause on this side that alone explains the failure comes
// before one that needs the other side's help.
func Diagnose(f FailedConnection) Diagnosis {
	l := f.Local
	switch {
	case l.Total() == 0 && f.Offered.TURN == 0:
		return Diagnosis{CauseNoLocalCandidates, "this peer found no network address to offer (no usable network interface, or WebRTC is restricted in this browser)"}
	case f.Offered.TURN > 0 && l.Relay == 0:
		return Diagnosis{CauseRelayUnavailable, "the server offered a TURN relay but it gave no relayed address (refused credentials, an exhausted quota, or UDP to the relay blocked)"}
	case f.Remote.Total() == 0:
		return Diagnosis{CauseNoRemoteCandidates, "the other peer offered no network address; it cannot be reached from here"}
	case f.Offered.STUN == 0 && f.Offered.TURN == 0:
		return Diagnosis{CauseNoICEServers, "the signalling server offered no STUN or TURN server: only local addresses are known, which peers behind another NAT cannot reach (ask its operator for -ice-servers or -turn)"}
	case f.Offered.TURN == 0 && l.Srflx == 0:
		return Diagnosis{CauseSTUNUnanswered, "no STUN server answered: UDP to the internet may be blocked on your network, and the server offers no relay"}
	case f.Offered.TURN == 0 && symmetric(f.Mappings):
		return Diagnosis{CauseSymmetricNAT, "your NAT is symmetric (a different public port for every destination) and the server offers no relay: direct connections fail"}
	case f.Offered.TURN == 0:
		return Diagnosis{CauseNoRelayOffered, "no relay offered by the server; your network (or the other peer's) allows only relayed connections"}
	default:
		return Diagnosis{CauseRemoteUnreachable, "even through the relay the other peer could not be reached: its network may block it, or it left"}
	}
}

// symmetric reports whether one base address was mapped to two public
// addresses.
func symmetric(ms []Mapping) bool {
	seen := map[string]string{}
	for _, m := range ms {
		if p, ok := seen[m.Base]; ok && p != m.Public {
			return true
		}
		seen[m.Base] = m.Public
	}
	return false
}

// offerOf counts the STUN and TURN URLs of the ICE servers.
func offerOf(urls [][]string) ICEOffer {
	var o ICEOffer
	for _, us := range urls {
		for _, u := range us {
			switch {
			case strings.HasPrefix(u, "stun:"), strings.HasPrefix(u, "stuns:"):
				o.STUN++
			case strings.HasPrefix(u, "turn:"), strings.HasPrefix(u, "turns:"):
				o.TURN++
			}
		}
	}
	return o
}

// sdpCandidates counts an SDP's candidates by type and lists its
// server-reflexive mappings ("a=candidate:F C T P ADDR PORT typ srflx
// raddr BASE rport BPORT").
func sdpCandidates(sdp string) (Candidates, []Mapping) {
	var c Candidates
	var ms []Mapping
	for _, line := range strings.Split(sdp, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "a=candidate:") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 8 || f[6] != "typ" {
			continue
		}
		switch f[7] {
		case "host":
			c.Host++
		case "srflx":
			c.Srflx++
			if len(f) >= 12 && f[8] == "raddr" && f[10] == "rport" {
				ms = append(ms, Mapping{Base: f[9] + ":" + f[11], Public: f[4] + ":" + f[5]})
			}
		case "prflx":
			c.Prflx++
		case "relay":
			c.Relay++
		}
	}
	return c, ms
}
