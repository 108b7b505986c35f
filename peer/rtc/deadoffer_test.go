package rtc

import "testing"

// An offer is dead when none of its candidates could work: none at all,
// or only unspecified, multicast or port-0 addresses, or odd transports.
func TestWorkableCandidates(t *testing.T) {
	for _, tc := range []struct {
		sdp  string
		want bool
	}{
		{"v=0\r\na=candidate:1 1 udp 2130706431 127.0.0.1 50000 typ host\r\n", true},
		{"v=0\r\na=candidate:1 1 UDP 2130706431 2001:db8::1 50000 typ host\r\n", true},
		{"a=candidate:1 1 udp 2130706431 3f2b9c1e-1111-2222-3333-444455556666.local 50000 typ host", true},
		{"a=candidate:1 1 tcp 1 192.0.2.1 9 typ host tcptype active", true}, // looks workable: found out by ConnectTimeout
		{"v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n", false},
		{"a=candidate:1 1 udp 2130706431 0.0.0.0 50000 typ host", false},
		{"a=candidate:1 1 udp 2130706431 224.0.0.1 50000 typ host", false},
		{"a=candidate:1 1 udp 2130706431 127.0.0.1 0 typ host", false},
		{"a=candidate:1 1 sctp 2130706431 127.0.0.1 5000 typ host", false},
		{"a=candidate:1 1 udp 2130706431 not-an-address 5000 typ host", false},
		{"a=candidate:1 1 udp", false},
	} {
		if got := workableCandidates(tc.sdp); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.sdp, got, tc.want)
		}
	}
}
