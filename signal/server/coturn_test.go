package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/peerlearn/peerlearn/internal/proctest"
)

// startCoturn runs Debian's coturn (turnserver) on loopback with
// CoturnConfig; skipped without it, except under CI=true.
func startCoturn(t *testing.T, secret string) (addr string, minPort, maxPort int) {
	t.Helper()
	bin, err := exec.LookPath("turnserver")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("turnserver (Debian coturn) is missing: scripts/deps.sh test installs it")
		}
		t.Skip("turnserver (Debian coturn) not installed: apt-get install coturn (scripts/deps.sh test)")
	}
	hostPort := proctest.FreeAddr(t)
	_, p, _ := net.SplitHostPort(hostPort)
	var port int
	fmt.Sscan(p, &port)
	// A relay port range of its own, away from the ephemeral ports.
	minPort = 20000 + (port % 2000 * 10)
	maxPort = minPort + 9
	dir := t.TempDir()
	o := DefaultCoturnOptions(secret)
	o.ListenIP, o.Port, o.RelayIP, o.MinPort, o.MaxPort = "127.0.0.1", port, "127.0.0.1", minPort, maxPort
	o.AllowPeers = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	o.Extra = []string{"pidfile=" + filepath.Join(dir, "turn.pid"), "userdb=" + filepath.Join(dir, "turndb"),
		"log-file=stdout", "simple-log", "no-software-attribute"}
	conf := filepath.Join(dir, "turnserver.conf")
	if err := os.WriteFile(conf, []byte(CoturnConfig(o)), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-c", conf)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case logs <- sc.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			for len(logs) > 0 {
				t.Log("coturn: " + <-logs)
			}
		}
	})
	// Ready when it answers on its UDP port: wait for the listener line.
	deadline := time.After(10 * time.Second)
	for {
		select {
		case l := <-logs:
			if strings.Contains(l, "IPv4. UDP listener opened on") || strings.Contains(l, "Total General servers") {
				return hostPort, minPort, maxPort
			}
		case <-deadline:
			t.Fatal("coturn did not start within 10 s")
		}
	}
}

// A native pion peer pair, forced to relay (ICETransportPolicyRelay),
// connects through a real coturn process using credentials minted as the
// signalling server mints them (TURN REST, shared secret): the selected
// pair is relay on both ends, on coturn's relay ports.
func TestCoturnRelay(t *testing.T) {
	const secret = "coturn-test-secret-0123456789"
	addr, minPort, maxPort := startCoturn(t, secret)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	newPC := func(b byte) *webrtc.PeerConnection {
		user, pass := TURNCredentials(secret, identity(t, b).ID().Hex(), time.Now().Add(10*time.Minute))
		se := webrtc.SettingEngine{}
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
		api := webrtc.NewAPI(webrtc.WithSettingEngine(se))
		pc, err := api.NewPeerConnection(webrtc.Configuration{
			ICEServers:         []webrtc.ICEServer{{URLs: []string{"turn:" + addr + "?transport=udp"}, Username: user, Credential: pass}},
			ICETransportPolicy: webrtc.ICETransportPolicyRelay,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pc.Close() })
		return pc
	}
	a, b := newPC(1), newPC(2)
	got := make(chan string, 1)
	b.OnDataChannel(func(dc *webrtc.DataChannel) {
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
			select {
			case got <- string(m.Data):
			default:
			}
		})
	})
	dc, err := a.CreateDataChannel("relay", nil)
	if err != nil {
		t.Fatal(err)
	}
	dc.OnOpen(func() { dc.SendText("through coturn") })
	complete := func(pc *webrtc.PeerConnection, sd webrtc.SessionDescription) webrtc.SessionDescription {
		done := webrtc.GatheringCompletePromise(pc)
		if err := pc.SetLocalDescription(sd); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
		case <-ctx.Done():
			t.Fatal("ICE gathering did not complete")
		}
		return *pc.LocalDescription()
	}
	offer, err := a.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	o := complete(a, offer)
	if !strings.Contains(o.SDP, "typ relay") || strings.Contains(o.SDP, "typ host") {
		t.Fatalf("offer candidates are not relay only:\n%s", o.SDP)
	}
	if err := b.SetRemoteDescription(o); err != nil {
		t.Fatal(err)
	}
	answer, err := b.CreateAnswer(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetRemoteDescription(complete(b, answer)); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m != "through coturn" {
			t.Fatalf("got %q", m)
		}
	case <-ctx.Done():
		t.Fatalf("no message over the relay (ICE %v / %v)", a.ICEConnectionState(), b.ICEConnectionState())
	}
	for name, pc := range map[string]*webrtc.PeerConnection{"offerer": a, "answerer": b} {
		pair, err := pc.SCTP().Transport().ICETransport().GetSelectedCandidatePair()
		if err != nil || pair == nil {
			t.Fatalf("%s: no selected pair: %v", name, err)
		}
		for _, c := range []*webrtc.ICECandidate{pair.Local, pair.Remote} {
			if c.Typ != webrtc.ICECandidateTypeRelay || c.Address != "127.0.0.1" || int(c.Port) < minPort || int(c.Port) > maxPort {
				t.Fatalf("%s: selected %v, want relay candidates on coturn's ports %d-%d", name, pair, minPort, maxPort)
			}
		}
	}
}

// The rendered coturn configuration denies the special ranges as
// first-last ranges, and allows loopback only when asked.
func TestCoturnConfig(t *testing.T) {
	o := DefaultCoturnOptions("s3cret-0123456789abcdef")
	conf := CoturnConfig(o)
	for _, want := range []string{"use-auth-secret\n", "static-auth-secret=s3cret-0123456789abcdef\n", "denied-peer-ip=10.0.0.0-10.255.255.255\n",
		"denied-peer-ip=127.0.0.0-127.255.255.255\n", "denied-peer-ip=fc00::-fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff\n",
		"denied-peer-ip=::1\n", "user-quota=16\n", "total-quota=1000\n", "max-bps=4194304\n", "no-tcp-relay\n"} {
		if !strings.Contains(conf, want) {
			t.Errorf("config lacks %q", want)
		}
	}
	if strings.Contains(conf, "allow-loopback-peers") || strings.Contains(conf, "allowed-peer-ip") {
		t.Error("loopback allowed by default")
	}
	o.AllowPeers = LoopbackPrefixes()[:1]
	if conf := CoturnConfig(o); !strings.Contains(conf, "allowed-peer-ip=127.0.0.0-127.255.255.255\nallow-loopback-peers\n") {
		t.Errorf("allowing loopback:\n%s", conf)
	}
}
