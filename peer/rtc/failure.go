package rtc

import (
	"github.com/pion/webrtc/v4"
)

// failureCause diagnoses c's failed connection from pc's descriptions
// (non-trickle: each SDP carries every candidate its side gathered),
// counts it under its cause and logs the cause when it differs from the
// last one (a peer retrying the same dead end says so once). A
// connection is diagnosed once, whichever of its ICE failure and its
// ConnectTimeout comes first.
func (m *Manager) failureCause(c *conn, pc *webrtc.PeerConnection, offered ICEOffer) {
	m.mu.Lock()
	again := c.diagnosed
	c.diagnosed = true
	m.mu.Unlock()
	if again {
		return
	}
	f := FailedConnection{Offered: offered}
	if ld := pc.LocalDescription(); ld != nil {
		f.Local, f.Mappings = sdpCandidates(ld.SDP)
	}
	if rd := pc.RemoteDescription(); rd != nil {
		f.Remote, _ = sdpCandidates(rd.SDP)
	}
	d := Diagnose(f)
	m.smu.Lock()
	changed := m.stats.LastFailure.Cause != d.Cause
	m.stats.FailureCauses.add(d.Cause)
	m.stats.LastFailure = d
	m.smu.Unlock()
	if changed {
		m.logf("connection to %v failed (%s): %s", c.peer, d.Cause, d.Why)
	}
}

// timedOutCause diagnoses a connection abandoned at ConnectTimeout
// whose ICE had both sides' candidates and found no path: a browser
// reports ICE "failed" only after about 30 s, past the timeout, so
// without this a tab would never say why.
func (m *Manager) timedOutCause(c *conn, pc *webrtc.PeerConnection, offered ICEOffer) {
	if pc == nil || pc.RemoteDescription() == nil {
		return // the other side never answered: nothing for ICE to try
	}
	switch pc.ICEConnectionState() {
	case webrtc.ICEConnectionStateConnected, webrtc.ICEConnectionStateCompleted:
		return // ICE found a path; what failed came after it
	}
	m.failureCause(c, pc, offered)
}

// offerOfServers summarises the ICE servers a peer connection is given.
func offerOfServers(ice []webrtc.ICEServer) ICEOffer {
	urls := make([][]string, 0, len(ice))
	for _, s := range ice {
		urls = append(urls, s.URLs)
	}
	return offerOf(urls)
}

// FailureCounts counts failed connections by diagnosed cause (a struct,
// not a map: Stats stays a comparable value).
type FailureCounts struct {
	NoLocalCandidates, NoRemoteCandidates, NoICEServers, STUNUnanswered uint64
	RelayUnavailable, SymmetricNAT, NoRelayOffered, RemoteUnreachable   uint64
}

// add counts one failure of cause.
func (f *FailureCounts) add(cause string) {
	switch cause {
	case CauseNoLocalCandidates:
		f.NoLocalCandidates++
	case CauseNoRemoteCandidates:
		f.NoRemoteCandidates++
	case CauseNoICEServers:
		f.NoICEServers++
	case CauseSTUNUnanswered:
		f.STUNUnanswered++
	case CauseRelayUnavailable:
		f.RelayUnavailable++
	case CauseSymmetricNAT:
		f.SymmetricNAT++
	case CauseNoRelayOffered:
		f.NoRelayOffered++
	case CauseRemoteUnreachable:
		f.RemoteUnreachable++
	}
}
