package rtc

import (
	"testing"

	"github.com/pion/webrtc/v4"
)

func TestDiagnose(t *testing.T) {
	stun := ICEOffer{STUN: 1}
	turn := ICEOffer{STUN: 1, TURN: 1}
	hosts := Candidates{Host: 2}
	mapped := Candidates{Host: 2, Srflx: 1}
	relayed := Candidates{Host: 2, Srflx: 1, Relay: 1}
	for _, tc := range []struct {
		name string
		f    FailedConnection
		want string
	}{
		{"nothing gathered", FailedConnection{Offered: stun, Remote: hosts}, CauseNoLocalCandidates},
		{"relay-only policy, relay refused", FailedConnection{Offered: turn, Remote: relayed}, CauseRelayUnavailable},
		{"other side sent nothing", FailedConnection{Offered: stun, Local: mapped}, CauseNoRemoteCandidates},
		{"default server flags", FailedConnection{Local: hosts, Remote: hosts}, CauseNoICEServers},
		{"STUN silent", FailedConnection{Offered: stun, Local: hosts, Remote: mapped}, CauseSTUNUnanswered},
		{"TURN offered, no relayed address", FailedConnection{Offered: turn, Local: mapped, Remote: relayed}, CauseRelayUnavailable},
		{"symmetric NAT", FailedConnection{Offered: ICEOffer{STUN: 2}, Local: Candidates{Host: 1, Srflx: 2}, Remote: mapped,
			Mappings: []Mapping{{"10.0.0.2:5000", "203.0.113.7:40001"}, {"10.0.0.2:5000", "203.0.113.7:40002"}}}, CauseSymmetricNAT},
		{"same mapping twice: not symmetric", FailedConnection{Offered: ICEOffer{STUN: 2}, Local: Candidates{Host: 1, Srflx: 2}, Remote: mapped,
			Mappings: []Mapping{{"10.0.0.2:5000", "203.0.113.7:40001"}, {"10.0.0.2:5000", "203.0.113.7:40001"}}}, CauseNoRelayOffered},
		{"mapped, no relay", FailedConnection{Offered: stun, Local: mapped, Remote: mapped}, CauseNoRelayOffered},
		{"relay there, still nothing", FailedConnection{Offered: turn, Local: relayed, Remote: hosts}, CauseRemoteUnreachable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Diagnose(tc.f)
			if d.Cause != tc.want || d.Why == "" {
				t.Errorf("Diagnose(%+v) = %+v, want cause %s with a sentence", tc.f, d, tc.want)
			}
			var counts FailureCounts
			counts.add(d.Cause)
			if counts == (FailureCounts{}) {
				t.Errorf("cause %s is not counted", d.Cause)
			}
		})
	}
}

func TestSDPCandidates(t *testing.T) {
	sdp := "v=0\r\n" +
		"a=candidate:1 1 udp 2130706431 192.168.1.5 50000 typ host\r\n" +
		"a=candidate:2 1 udp 2130706431 abcd.local 50001 typ host\r\n" +
		"a=candidate:3 1 udp 1694498815 203.0.113.7 40001 typ srflx raddr 192.168.1.5 rport 50000\r\n" +
		"a=candidate:4 1 udp 1694498815 203.0.113.7 40002 typ srflx raddr 192.168.1.5 rport 50000\r\n" +
		"a=candidate:5 1 udp 16777215 198.51.100.1 3478 typ relay raddr 203.0.113.7 rport 40001\r\n" +
		"a=candidate:6 1 udp 1 198.51.100.2 1 typ prflx\r\n" +
		"a=candidate:bad\r\n" +
		"a=mid:0\r\n"
	c, ms := sdpCandidates(sdp)
	if want := (Candidates{Host: 2, Srflx: 2, Prflx: 1, Relay: 1}); c != want {
		t.Errorf("candidates %+v, want %+v", c, want)
	}
	if len(ms) != 2 || ms[0].Base != "192.168.1.5:50000" || ms[1].Public != "203.0.113.7:40002" || !symmetric(ms) {
		t.Errorf("mappings %+v", ms)
	}
}

func TestOfferOfServers(t *testing.T) {
	o := offerOfServers([]webrtc.ICEServer{
		{URLs: []string{"stun:a:3478", "stuns:b:5349"}},
		{URLs: []string{"turn:c:3478?transport=udp", "turns:c:5349"}, Username: "u", Credential: "p"},
		{URLs: []string{"http://not-ice"}},
	})
	if o != (ICEOffer{STUN: 2, TURN: 2}) {
		t.Errorf("offer %+v", o)
	}
	if o := offerOfServers(nil); o != (ICEOffer{}) {
		t.Errorf("no servers: %+v", o)
	}
}
