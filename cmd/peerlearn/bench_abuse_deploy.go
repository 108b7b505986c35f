//go:build hostile

package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/pion/turn/v5"

	"github.com/peerlearn/peerlearn/internal/nginx"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The deployment as documented (issue #27): the server behind the nginx
// proxy DEPLOY.md shows, the embedded TURN relay, and contact claims.

// serveOn runs srv on a fresh 127.0.0.1 listener; stop shuts it down.
func serveOn(srv *server.Server) (addr string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	go srv.Serve(ln) //nolint:errcheck // ends with Shutdown
	return ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx) //nolint:errcheck // best effort
	}, nil
}

// proxyFlood is serverFlood against a server behind nginx (internal/nginx:
// DEPLOY.md's configuration), trusted for the client address, with the
// loopback exemptions off as cmd/signalserver turns them off with
// -trusted-proxies: the attacker dials the proxy from 127.0.0.2, the
// newcomer from 127.0.0.1, and the server sees each one's address in
// X-Forwarded-For. It returns serverFlood's results and the newcomer's
// join time.
func proxyFlood(ctx context.Context, spec task.Spec, tid ident.Task, sockets, fakes int) (joined, socketsHeld, peersHeld int, err error) {
	scfg := server.DefaultConfig()
	scfg.Tasks = []task.Spec{spec}
	scfg.Proxies.Proxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	scfg.AddrLimits.Exempt, scfg.Admission.Exempt = nil, nil
	srv, err := server.New(scfg)
	if err != nil {
		return 0, 0, 0, err
	}
	addr, stop, err := serveOn(srv)
	if err != nil {
		return 0, 0, 0, err
	}
	defer stop()
	dir, err := os.MkdirTemp("", "bench-abuse-nginx-")
	if err != nil {
		return 0, 0, 0, err
	}
	defer os.RemoveAll(dir)
	px, err := nginx.Start(dir, addr)
	if err != nil {
		return 0, 0, 0, err
	}
	defer px.Stop()
	joined, socketsHeld, peersHeld = serverFlood(ctx, "ws://"+px.Addr+"/signal", tid, sockets, fakes)
	return joined, socketsHeld, peersHeld, nil
}

// turnDrain tries to drain the embedded TURN relay as issue #27 did: 63
// registrations from 3 subnets (127.1/16, 127.2/16, 127.3/16: each /24
// of its own address), each asking for its MaxAllocationsPerUser from
// its own address; then an honest newcomer from 127.4.0.1 asks for one.
// drained is 1 if the newcomer was refused; held is what the hostiles
// got.
func turnDrain(ctx context.Context, spec task.Spec, tid ident.Task) (drained, held, refused int, err error) {
	var sb [16]byte
	rand.Read(sb[:]) //nolint:errcheck // never fails
	secret := hex.EncodeToString(sb[:])
	tcfg := server.DefaultTURNConfig()
	tcfg.ListenAddr, tcfg.Secret, tcfg.Exempt = "127.0.0.1:0", secret, nil // the 127/8 addresses stand for clients
	relay, err := server.StartTURN(tcfg)
	if err != nil {
		return 0, 0, 0, err
	}
	defer relay.Close()
	scfg := server.DefaultConfig()
	spec.MaxPeers = max(spec.MaxPeers, 100)
	scfg.Tasks = []task.Spec{spec}
	scfg.MaxPeers = max(scfg.MaxPeers, 100)
	scfg.TURN = &server.TURNAuth{URLs: []string{relay.URL()}, Secret: secret, TTL: 10 * time.Minute, OnSessionEnd: relay.Revoke}
	srv, err := server.New(scfg)
	if err != nil {
		return 0, 0, 0, err
	}
	relay.TieToSessions(srv)
	addr, stop, err := serveOn(srv)
	if err != nil {
		return 0, 0, 0, err
	}
	defer stop()
	url := "ws://" + addr + "/signal"
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	allocate := func(from netip.Addr, ice signal.ICEServer) error {
		conn, err := net.ListenPacket("udp4", netip.AddrPortFrom(from, 0).String())
		if err != nil {
			return err
		}
		c, err := turn.NewClient(&turn.ClientConfig{
			STUNServerAddr: relay.Addr().String(), TURNServerAddr: relay.Addr().String(), Conn: conn,
			Username: ice.Username, Password: ice.Credential, Realm: "peerlearn", RTO: 100 * time.Millisecond,
		})
		if err != nil {
			conn.Close()
			return err
		}
		closers = append(closers, func() { c.Close(); conn.Close() })
		if err := c.Listen(); err != nil {
			return err
		}
		r, err := c.Allocate()
		if err != nil {
			return err
		}
		closers = append(closers, func() { r.Close() })
		return nil
	}
	register := func(from netip.Addr) (signal.ICEServer, error) {
		c, w, err := registerFrom(ctx, url, tid, from)
		if err != nil {
			return signal.ICEServer{}, err
		}
		closers = append(closers, func() { c.CloseNow() })
		for _, s := range w.ICEServers {
			if s.Username != "" {
				return s, nil
			}
		}
		return signal.ICEServer{}, errors.New("welcome without TURN credentials")
	}
	for i := range 63 {
		ip := netip.AddrFrom4([4]byte{127, byte(1 + i%3), 0, byte(1 + i/3)})
		ice, err := register(ip)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("hostile registration %d from %v: %w", i, ip, err)
		}
		for range tcfg.MaxAllocationsPerUser {
			if err := allocate(ip, ice); err != nil {
				if !strings.Contains(err.Error(), "486") {
					return 0, 0, 0, fmt.Errorf("hostile allocation from %v: %w", ip, err)
				}
				refused++
				continue
			}
			held++
		}
	}
	honest := netip.MustParseAddr("127.4.0.1")
	ice, err := register(honest)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("honest registration: %w", err)
	}
	if err := allocate(honest, ice); err != nil {
		return 1, held, refused, nil
	}
	return 0, held, refused, nil
}

// registerFrom registers a fresh identity over a raw websocket from the
// local address from and returns the connection (kept open) and the
// welcome.
func registerFrom(ctx context.Context, url string, tid ident.Task, from netip.Addr) (*websocket.Conn, *signal.Welcome, error) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: from.AsSlice()}, Timeout: 2 * time.Second}
	opts := &websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}}
	id, err := signal.NewIdentity(nil)
	if err != nil {
		return nil, nil, err
	}
	c, w, err := registerRaw(ctx, url, tid, id, opts)
	return c, w, err
}

// registerRaw runs the handshake as id over a raw websocket; the
// connection is returned open when it got a welcome.
func registerRaw(ctx context.Context, url string, tid ident.Task, id signal.Identity, opts *websocket.DialOptions) (*websocket.Conn, *signal.Welcome, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		return nil, nil, err
	}
	c.SetReadLimit(signal.MaxMessageSize)
	read := func() (*signal.Message, error) {
		_, b, err := c.Read(ctx)
		if err != nil {
			return nil, err
		}
		return signal.Decode(b)
	}
	ch, err := read()
	if err == nil && ch.Type != signal.MsgChallenge {
		err = fmt.Errorf("got %v, want a challenge", ch.Type)
	}
	if err == nil {
		err = writeMsg(ctx, c, &signal.Message{Type: signal.MsgHello, Hello: signal.SignHello(id, ch.Challenge.Nonce, tid)})
	}
	var m *signal.Message
	if err == nil {
		m, err = read()
	}
	switch {
	case err != nil:
	case m.Type == signal.MsgError:
		err = m.Error
	case m.Type != signal.MsgWelcome:
		err = fmt.Errorf("got %v, want a welcome", m.Type)
	}
	if err != nil {
		c.CloseNow()
		return nil, nil, err
	}
	return c, m.Welcome, nil
}

func writeMsg(ctx context.Context, c *websocket.Conn, m *signal.Message) error {
	b, err := signal.Encode(m)
	if err != nil {
		return err
	}
	return c.Write(ctx, websocket.MessageText, b)
}

// deadOfferFakes registers n fakes, each from an address of its own
// (127.0.(20+i).1: a /24 each, so the per-address limits do not stop
// them), and has each send every contact it was handed a signed offer
// whose only candidate is dead (127.0.0.1:9, which looks workable), then
// claim a connection to each: what issue #27's fakes did to become
// established. It returns the fakes' IDs and their connections (the
// caller closes them).
func deadOfferFakes(ctx context.Context, url string, tid ident.Task, n int) ([]ident.Peer, []*websocket.Conn, error) {
	sdp, err := deadSDP()
	if err != nil {
		return nil, nil, err
	}
	sdp += "a=candidate:1 1 udp 2130706431 127.0.0.1 9 typ host\r\n"
	var ids []ident.Peer
	var conns []*websocket.Conn
	for i := range n {
		id, err := signal.NewIdentity(nil)
		if err != nil {
			return ids, conns, err
		}
		from := netip.AddrFrom4([4]byte{127, 0, byte(20 + i), 1})
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: from.AsSlice()}, Timeout: 2 * time.Second}
		opts := &websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}}
		c, w, err := registerRaw(ctx, url, tid, id, opts)
		if err != nil {
			return ids, conns, fmt.Errorf("fake %d: %w", i, err)
		}
		ids, conns = append(ids, id.ID()), append(conns, c)
		go func() { // drain what the server relays (answers, errors)
			for {
				if _, _, err := c.Read(context.Background()); err != nil {
					return
				}
			}
		}()
		for _, contact := range w.Contacts {
			var sid [8]byte
			rand.Read(sid[:]) //nolint:errcheck // never fails
			body, err := rtc.EncodeSession(rtc.Session{Kind: rtc.SessionOffer, To: contact, ID: binary.BigEndian.Uint64(sid[:]) | 1, UnixMilli: time.Now().UnixMilli(), SDP: sdp}, id)
			if err != nil {
				return ids, conns, err
			}
			if err := writeMsg(ctx, c, &signal.Message{Type: signal.MsgRelay, Relay: &signal.Relay{To: contact, Kind: signal.RelayOffer, Data: base64.StdEncoding.EncodeToString(body)}}); err != nil {
				return ids, conns, err
			}
		}
		for _, contact := range w.Contacts {
			if err := writeMsg(ctx, c, &signal.Message{Type: signal.MsgConnected, Connected: &signal.Connected{Peer: contact}}); err != nil {
				return ids, conns, err
			}
		}
	}
	return ids, conns, nil
}

// fakesHanded registers k newcomers one after another (each leaves before
// the next comes, so none is handed to another) and counts the fakes
// among the contacts they are handed, of how many contacts in all.
func fakesHanded(ctx context.Context, url string, tid ident.Task, fakes []ident.Peer, k int) (handed, contacts int, err error) {
	for range k {
		c, w, err := registerFrom(ctx, url, tid, netip.MustParseAddr("127.0.0.1"))
		if err != nil {
			return handed, contacts, err
		}
		c.Close(websocket.StatusNormalClosure, "bye")
		contacts += len(w.Contacts)
		for _, p := range w.Contacts {
			if slices.Contains(fakes, p) {
				handed++
			}
		}
	}
	return handed, contacts, nil
}

// newcomerJoin is an honest newcomer with the peer's transport: it
// registers, offers to every contact it was handed through the server,
// and is joined when its first connection opens. It returns how long
// that took from the dial, and the fakes among its contacts.
func newcomerJoin(ctx context.Context, url string, tid ident.Task, fakes []ident.Peer, logf func(string, ...any)) (time.Duration, int, error) {
	id, err := signal.NewIdentity(nil)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	c, err := signal.Dial(cctx, url, id, tid, signal.DefaultClientConfig())
	cancel()
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	cfg := rtc.DefaultConfig()
	cfg.Identity, cfg.Task, cfg.ICEServers, cfg.LoopbackOnly = id, tid, c.Welcome().ICEServers, true
	cfg.Logf = func(format string, args ...any) { logf("newcomer: "+format, args...) }
	m, err := rtc.NewManager(cfg)
	if err != nil {
		return 0, 0, err
	}
	defer m.Close()
	done := make(chan struct{})
	defer close(done)
	go func() { // drain
		for {
			select {
			case <-done:
				return
			case <-m.Events():
			}
		}
	}()
	m.AttachSignal(c)
	contacts := c.Welcome().Contacts
	nFakes := 0
	for _, p := range contacts {
		if slices.Contains(fakes, p) {
			nFakes++
		}
		m.SendApp(p, []byte{0}) //nolint:errcheck // the connection it starts is what counts
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
		for _, p := range m.Peers() {
			if slices.Contains(contacts, p) {
				return time.Since(start), nFakes, nil
			}
		}
	}
	return 0, nFakes, fmt.Errorf("the newcomer connected to none of its %d contacts in 30 s", len(contacts))
}
