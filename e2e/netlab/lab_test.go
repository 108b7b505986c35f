package netlab

import (
	"fmt"
	"net"
	"os"
	"testing"
	"time"
)

// needLab skips a test that cannot build a lab here, except under CI,
// where it fails (CI runs as root).
func needLab(t *testing.T) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %v", err)
		}
		t.Skipf("skipped: %v", err)
	}
}

func startLab(t *testing.T, cfg Config) *Lab {
	t.Helper()
	needLab(t)
	l, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("lab close: %v", err)
		}
	})
	return l
}

// probe sends one datagram from a socket in home h to each of the
// internet's reflector ports and returns the source port each saw (0:
// nothing arrived) and whether the reply that each sent from the other
// port (to the mapping the first saw) came back.
func probe(t *testing.T, l *Lab, h *Home, refl []net.PacketConn) (seen []int, crossReply bool) {
	t.Helper()
	c, err := ListenPacket(h.Host, "udp4", h.HostIP+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seen = make([]int, len(refl))
	var first *net.UDPAddr
	for i, r := range refl {
		if _, err := c.WriteTo([]byte("hi"), r.LocalAddr()); err != nil {
			t.Fatal(err)
		}
		r.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		buf := make([]byte, 16)
		if _, from, err := r.ReadFrom(buf); err == nil {
			seen[i] = from.(*net.UDPAddr).Port
			if first == nil {
				first = from.(*net.UDPAddr)
			}
		}
	}
	if first == nil {
		return seen, false
	}
	// The last reflector port answers the first one's mapping: only a
	// NAT with endpoint-independent filtering lets it in.
	if _, err := refl[len(refl)-1].WriteTo([]byte("back"), first); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	buf := make([]byte, 16)
	_, _, err = c.ReadFrom(buf)
	return seen, err == nil
}

// Each home's router does what its NAT kind says, checked with plain
// UDP: mapping (the source port the internet sees for two destinations)
// and filtering (whether an answer from another port gets in).
func TestLabNATBehaviour(t *testing.T) {
	l := startLab(t, DefaultConfig())
	var refl []net.PacketConn
	for _, port := range []int{3478, 5000} {
		r, err := ListenPacket(l.Internet, "udp4", fmt.Sprintf("%s:%d", ServerIP, port))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		refl = append(refl, r)
	}
	for _, h := range l.Homes {
		seen, cross := probe(t, l, h, refl)
		t.Logf("home %s (%s): source ports %v, answer from another port gets in: %v", h.Name, h.NAT, seen, cross)
		switch h.NAT {
		case FullCone:
			if seen[0] == 0 || seen[0] != seen[1] || !cross {
				t.Errorf("home %s: ports %v, cross reply %v; want one port for both and the reply in", h.Name, seen, cross)
			}
		case Symmetric:
			if seen[0] == 0 || seen[1] == 0 || seen[0] == seen[1] || cross {
				t.Errorf("home %s: ports %v, cross reply %v; want two ports and no reply", h.Name, seen, cross)
			}
		case UDPBlocked:
			if seen[0] == 0 || seen[1] != 0 || cross {
				t.Errorf("home %s: ports %v, cross reply %v; want only the TURN port reached", h.Name, seen, cross)
			}
		}
	}
	// Nothing unsolicited gets into any home.
	for _, h := range l.Homes {
		c, err := ListenPacket(h.Host, "udp4", h.HostIP+":7000")
		if err != nil {
			t.Fatal(err)
		}
		refl[1].WriteTo([]byte("unsolicited"), &net.UDPAddr{IP: net.ParseIP(h.WANIP), Port: 7000})
		c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if _, _, err := c.ReadFrom(make([]byte, 16)); err == nil {
			t.Errorf("home %s: an unsolicited datagram got in", h.Name)
		}
		c.Close()
	}
}
