package rtc

import (
	"slices"
	"strings"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Link is one open connection as ICE made it: the selected candidate
// pair's local and remote candidate types (host, srflx, prflx, relay), so
// an operator or a volunteer can tell a relayed link from a direct one.
type Link struct {
	Peer string `json:"peer"` // the peer's ID, hex
	// Local and Remote are the selected pair's candidate types; empty
	// while none is selected (or the browser does not say).
	Local  string `json:"local"`
	Remote string `json:"remote"`
	// Path is "relay" when either side's candidate is a TURN relay,
	// "direct" otherwise, "" when unknown.
	Path string `json:"path"`
	// ConnectMS is the time from the attempt's start (offer created or
	// received) to the data channel opening.
	ConnectMS int64 `json:"connect_ms"`
	// Offered: this peer made the offer.
	Offered bool `json:"offered"`
	// RemoteHosts counts the peer's host candidates this side knows by
	// address: a browser's are mDNS names, so natively these are the ones
	// it resolved (pion's query mode; refreshed every few seconds). -1 in
	// a browser, which does not say.
	RemoteHosts int `json:"remote_hosts"`
}

// hostsEvery is how often Links recounts a link's remote host
// candidates (pion's stats report is not cheap, and Links runs on every
// turn of the peer's loop).
const hostsEvery = 2 * time.Second

// PathOf classifies a selected pair by its candidate types.
func PathOf(local, remote string) string {
	switch {
	case local == "" || remote == "":
		return ""
	case local == "relay" || remote == "relay":
		return "relay"
	}
	return "direct"
}

// Links returns the open connections with their selected candidate
// pairs, sorted by peer.
func (m *Manager) Links() []Link {
	type open struct {
		c         *conn
		peer      ident.Peer
		pc        *webrtc.PeerConnection
		connect   time.Duration
		initiator bool
		hosts     int
		stale     bool // hosts needs a recount
	}
	var opens []open
	now := time.Now()
	m.mu.Lock()
	for _, c := range m.conns {
		if c.closed || c.dc == nil || c.pc == nil {
			continue
		}
		opens = append(opens, open{c, c.peer, c.pc, c.opened.Sub(c.started), c.initiator, c.hosts, now.Sub(c.hostsAt) >= hostsEvery})
	}
	m.mu.Unlock()
	out := make([]Link, 0, len(opens))
	for _, o := range opens { // pion's calls outside m.mu: they take locks of their own
		l := Link{Peer: o.peer.Hex(), ConnectMS: o.connect.Milliseconds(), Offered: o.initiator, RemoteHosts: o.hosts}
		l.Local, l.Remote = selectedPair(o.pc)
		l.Path = PathOf(l.Local, l.Remote)
		if o.stale {
			l.RemoteHosts = remoteHosts(o.pc)
			m.mu.Lock()
			o.c.hosts, o.c.hostsAt = l.RemoteHosts, now
			m.mu.Unlock()
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b Link) int { return strings.Compare(a.Peer, b.Peer) })
	return out
}

// selectedPair returns the candidate types of pc's selected ICE pair, or
// "" where they cannot be known. In a browser pion calls the page's
// RTCIceTransport.getSelectedCandidatePair, which only Chromium has:
// elsewhere (Firefox) the call panics in syscall/js, and a link's
// candidate types are not worth a peer.
func selectedPair(pc *webrtc.PeerConnection) (local, remote string) {
	defer func() {
		if recover() != nil {
			local, remote = "", ""
		}
	}()
	sctp := pc.SCTP()
	if sctp == nil {
		return "", ""
	}
	dtls := sctp.Transport()
	if dtls == nil {
		return "", ""
	}
	ice := dtls.ICETransport()
	if ice == nil {
		return "", ""
	}
	pair, err := ice.GetSelectedCandidatePair()
	if err != nil || pair == nil || pair.Local == nil || pair.Remote == nil {
		return "", ""
	}
	return candidateType(pair.Local.Typ), candidateType(pair.Remote.Typ)
}

func candidateType(t webrtc.ICECandidateType) string {
	if t == webrtc.ICECandidateTypeUnknown {
		return ""
	}
	return t.String()
}
