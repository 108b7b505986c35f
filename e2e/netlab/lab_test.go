package netlab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
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
// internet's reflector ports but the last and returns the source port
// each saw (0: nothing arrived) and whether a datagram from the last
// port, which the home never sent to, to the mapping the first saw came
// in.
func probe(t *testing.T, l *Lab, h *Home, refl []net.PacketConn) (seen []int, crossReply bool) {
	t.Helper()
	c, err := ListenPacket(h.Host, "udp4", h.HostIP+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seen = make([]int, len(refl)-1)
	var first *net.UDPAddr
	for i, r := range refl[:len(refl)-1] {
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
	// The last reflector port, which the home never sent to, answers the
	// first one's mapping: only a NAT with endpoint-independent filtering
	// lets it in (a port-restricted one takes replies only from where the
	// home sent, whatever port it mapped).
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
// and filtering (whether a datagram from a port the home never sent to
// gets in).
func TestLabNATBehaviour(t *testing.T) {
	parallel(t)
	l := startLab(t, DefaultConfig())
	var refl []net.PacketConn
	for _, port := range []int{3478, 5000, 5001} {
		r, err := ListenPacket(l.Internet, "udp4", fmt.Sprintf("%s:%d", ServerIP, port))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		refl = append(refl, r)
	}
	for _, h := range l.Homes {
		seen, cross := probe(t, l, h, refl)
		t.Logf("home %s (%s): source ports %v, datagram from a port not sent to gets in: %v", h.Name, h.NAT, seen, cross)
		switch h.NAT {
		case FullCone:
			if seen[0] == 0 || seen[0] != seen[1] || !cross {
				t.Errorf("home %s: ports %v, cross reply %v; want one port for both and the reply in", h.Name, seen, cross)
			}
		case Symmetric:
			if seen[0] == 0 || seen[1] == 0 || seen[0] == seen[1] || cross {
				t.Errorf("home %s: ports %v, cross reply %v; want two ports and no reply", h.Name, seen, cross)
			}
		case PortRestricted:
			if seen[0] == 0 || seen[0] != seen[1] || cross {
				t.Errorf("home %s: ports %v, cross reply %v; want one port for both and no reply", h.Name, seen, cross)
			}
		case UDPBlocked:
			if seen[0] == 0 || seen[1] != 0 || cross {
				t.Errorf("home %s: ports %v, cross reply %v; want only the TURN port reached", h.Name, seen, cross)
			}
		}
	}
	// Nothing unsolicited gets into any home; a rejecting router says so
	// (ICMP port unreachable: a connected socket reads ECONNREFUSED), the
	// others are silent.
	for _, h := range l.Homes {
		c, err := ListenPacket(h.Host, "udp4", h.HostIP+":7000")
		if err != nil {
			t.Fatal(err)
		}
		out, err := DialContext(context.Background(), l.Internet, "udp4", h.WANIP+":7000")
		if err != nil {
			t.Fatal(err)
		}
		out.Write([]byte("unsolicited"))
		c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if _, _, err := c.ReadFrom(make([]byte, 16)); err == nil {
			t.Errorf("home %s: an unsolicited datagram got in", h.Name)
		}
		// The ICMP answer, if any, was sent when the datagram arrived,
		// before the read above timed out.
		out.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		_, err = out.Read(make([]byte, 16))
		refused := errors.Is(err, syscall.ECONNREFUSED)
		t.Logf("home %s: unsolicited datagram refused (ICMP): %v", h.Name, refused)
		if refused != h.Reject {
			t.Errorf("home %s: sender saw %v, want refused=%v", h.Name, err, h.Reject)
		}
		out.Close()
		c.Close()
	}
}
