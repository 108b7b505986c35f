package rtc

import (
	"testing"
	"time"
)

func TestPathOf(t *testing.T) {
	for _, c := range []struct{ local, remote, want string }{
		{"host", "host", "direct"},
		{"srflx", "prflx", "direct"},
		{"relay", "srflx", "relay"},
		{"host", "relay", "relay"},
		{"", "host", ""},
	} {
		if got := PathOf(c.local, c.remote); got != c.want {
			t.Errorf("PathOf(%q, %q) = %q, want %q", c.local, c.remote, got, c.want)
		}
	}
}

// Both ends of a loopback link report its selected pair: host to host,
// direct, with the time it took and who offered.
func TestLinksReportSelectedPair(t *testing.T) {
	sig := startSignal(t)
	a := newTestPeer(t, sig, 1, nil)
	b := newTestPeer(t, sig, 2, nil)
	if err := b.Send(a.ID(), []byte("hello a")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "a to hear b", func() bool { return len(a.messages(b.ID())) == 1 })
	waitFor(t, 5*time.Second, "both links", func() bool { return len(a.Links()) == 1 && len(b.Links()) == 1 })
	time.Sleep(hostsEvery) // the host candidate count of the first call may be from before the open
	la, lb := a.Links()[0], b.Links()[0]
	if la.Peer != b.ID().Hex() || lb.Peer != a.ID().Hex() {
		t.Fatalf("links name the wrong peers: %+v %+v", la, lb)
	}
	for _, l := range []Link{la, lb} {
		if l.Local != "host" || l.Remote != "host" || l.Path != "direct" || l.ConnectMS <= 0 || l.ConnectMS > 10000 || l.RemoteHosts != 1 {
			t.Errorf("link %+v, want host to host, direct, 0 < connect_ms <= 10000, 1 remote host candidate", l)
		}
	}
	if !lb.Offered || la.Offered {
		t.Errorf("b offered: a %+v, b %+v", la, lb)
	}
}
