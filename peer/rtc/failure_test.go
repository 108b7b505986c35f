package rtc

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/signal"
)

// Two real managers on loopback whose offer and answer carry only an
// unroutable address (TEST-NET-1), so ICE fails on both sides without a
// NAT: each failure must be counted under the cause the ICE servers
// given and the candidates gathered imply, and logged with its sentence.
func TestFailedConnectionIsDiagnosed(t *testing.T) {
	// A STUN server that never answers: a loopback UDP socket nobody reads.
	deaf, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deaf.Close() })
	deafURL := "stun:127.0.0.1:" + strconv.Itoa(deaf.LocalAddr().(*net.UDPAddr).Port)

	for _, tc := range []struct {
		name    string
		servers []signal.ICEServer
		timeout bool // ConnectTimeout comes before ICE's failure, as in a browser
		want    string
		count   func(FailureCounts) uint64
	}{
		{"no ICE servers", nil, false, CauseNoICEServers, func(f FailureCounts) uint64 { return f.NoICEServers }},
		{"STUN unanswered", []signal.ICEServer{{URLs: []string{deafURL}}}, false, CauseSTUNUnanswered, func(f FailureCounts) uint64 { return f.STUNUnanswered }},
		{"abandoned before ICE fails", nil, true, CauseNoICEServers, func(f FailureCounts) uint64 { return f.NoICEServers }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sig := startSignal(t)
			mutate := func(c *Config) {
				c.ICEServers = tc.servers
				c.GatherTimeout = time.Second // the deaf STUN server is given up on
				c.ICEDisconnectedTimeout, c.ICEFailedTimeout, c.ICEKeepalive = 300*time.Millisecond, time.Second, 100*time.Millisecond
				if tc.timeout {
					c.ICEFailedTimeout, c.ConnectTimeout = time.Minute, 3*time.Second
				}
			}
			a := newTestPeer(t, sig, 1, mutate)
			b := newTestPeer(t, sig, 2, mutate)
			unreachable := func(sdp string) string { return strings.ReplaceAll(sdp, "127.0.0.1", "192.0.2.1") }
			for _, p := range []*testPeer{a, b} {
				p.Manager.mu.Lock() // the hook is read under the Manager's mu
				p.hooks.sdp = unreachable
				p.Manager.mu.Unlock()
			}
			if err := b.Send(a.ID(), []byte("hi")); err != nil {
				t.Fatal(err)
			}
			for _, p := range []*testPeer{a, b} {
				waitFor(t, 8*time.Second, "the failure diagnosed", func() bool { return p.Stats().LastFailure.Cause != "" })
				s := p.Stats()
				if s.LastFailure.Cause != tc.want || tc.count(s.FailureCauses) == 0 || s.LastFailure.Why == "" {
					t.Errorf("diagnosed %+v, counts %+v; want %s", s.LastFailure, s.FailureCauses, tc.want)
				}
				if sum := s.FailureCauses.NoICEServers + s.FailureCauses.STUNUnanswered; sum != 1 {
					t.Errorf("%d failures diagnosed, want 1 (one connection)", sum)
				}
				if s.ConnectsOpened != 0 {
					t.Errorf("connected anyway: %+v", s)
				}
				// The manager counts the failure, then logs it: the line
				// may come a moment after the count the wait above saw.
				waitFor(t, 2*time.Second, "a log line naming "+tc.want, func() bool {
					logged := false
					p.with(func() {
						for _, l := range p.logs {
							logged = logged || strings.Contains(l, "("+tc.want+"): "+s.LastFailure.Why)
						}
					})
					return logged
				})
			}
		})
	}
}
