package server

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// session is one websocket connection. Its reader runs on the HTTP
// handler's goroutine, its writer on its own; fields marked "mu" are
// guarded by Server.mu, "reader" ones used by the reader alone.
type session struct {
	srv     *Server
	conn    *websocket.Conn
	netConn net.Conn    // under conn, for kill
	remote  string      // for logs: the client address ("ip via proxy:port" when forwarded)
	ip      netip.Addr  // the client's address, forwarded by a trusted proxy or its own (invalid: unknown)
	host    string      // the host the client reached the server by, if a plain name or address (stunHost)
	addr    clientAddr  // for AddrLimits (zero: exempt)
	out     chan []byte // encoded messages for the writer
	ctx     context.Context
	cancel  context.CancelFunc
	once    sync.Once // closeWith

	// mu: set at registration.
	id           ident.Peer
	pub          ed25519.PublicKey // the key the hello proved
	registeredAt time.Time
	task         *taskState
	contacts     []ident.Peer
	windowEnd    time.Time    // relays allowed until then (zero: none)
	established  bool         // connected, as a contact confirmed (claims.go), or was a task's first peer
	claimed      []ident.Peer // contacts it claimed a connection to (claims.go)
	confirmedBy  []ident.Peer // established contacts that reported an open channel with it (claims.go)
	registered   bool
	countedPeer  bool // counted in task.addrs (until dropped or replaced)
	observer     bool // registered as an observer (signal.Hello.Observer): never a contact

	// reader
	nonce       []byte
	bucket      bucket
	strikes     int
	lastRateErr time.Time
}

// serveWebsocket admits a connection and runs its session to the end.
func (s *Server) serveWebsocket(w http.ResponseWriter, r *http.Request) {
	if !originAllowed(r, s.cfg.AllowedOrigins) {
		s.counters.refuse(signal.CodeOrigin)
		s.logf("signal server: %s: origin %q refused", r.RemoteAddr, r.Header.Get("Origin"))
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	ip, forwarded, missing := s.cfg.Proxies.clientIP(r.RemoteAddr, r.Header)
	who := r.RemoteAddr
	if forwarded {
		who = ip.String() + " via " + r.RemoteAddr
	}
	if missing && !s.proxyHeaderMissing.Swap(true) {
		s.logf("signal server: trusted proxy %s sent no usable %s header: its clients get its address, and share its limits (this is logged once)", r.RemoteAddr, s.cfg.Proxies.Header)
	}
	addr := s.cfg.AddrLimits.clientOfIP(ip)
	s.mu.Lock()
	ipOver, subnetOver := s.pending.over(addr, s.cfg.AddrLimits.HandshakesPerIP, s.cfg.AddrLimits.HandshakesPerSubnet)
	switch {
	case s.draining:
		s.mu.Unlock()
		s.counters.refuse(signal.CodeShutdown)
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	case s.handshakes >= s.cfg.MaxHandshakes:
		s.mu.Unlock()
		s.counters.refuse(signal.CodeServerFull)
		http.Error(w, "too many pending handshakes", http.StatusServiceUnavailable)
		return
	case ipOver || subnetOver:
		s.mu.Unlock()
		s.counters.addrRefuse(limitHandshakesIP, ipOver, subnetOver)
		s.logf("signal server: %s: too many pending handshakes from its address (%v) or subnet (%v)", who, ipOver, subnetOver)
		http.Error(w, "too many pending handshakes from your address", http.StatusTooManyRequests)
		return
	}
	s.handshakes++
	s.pending.add(addr, 1)
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	hj := &hijackRecorder{ResponseWriter: w}
	conn, err := websocket.Accept(hj, r, &websocket.AcceptOptions{InsecureSkipVerify: true}) // Origin checked above
	if err != nil {
		s.mu.Lock()
		s.handshakes--
		s.pending.add(addr, -1)
		s.mu.Unlock()
		s.logf("signal server: %s: upgrade: %v", who, err)
		return
	}
	conn.SetReadLimit(int64(s.cfg.MaxMessageSize))
	ctx, cancel := context.WithCancel(context.Background())
	sess := &session{
		srv: s, conn: conn, netConn: hj.conn, remote: who, ip: ip, addr: addr, host: stunHost(r.Host),
		out: make(chan []byte, s.cfg.SendQueue), ctx: ctx, cancel: cancel,
		bucket: newBucket(s.cfg.MessagesPerSecond, s.cfg.Burst, time.Now()),
	}
	s.mu.Lock()
	s.sessions[sess] = struct{}{}
	s.mu.Unlock()
	s.counters.connections.Add(1)
	go sess.writeLoop()
	defer func() {
		if s.drop(sess) && s.cfg.TURN != nil && s.cfg.TURN.OnSessionEnd != nil {
			s.cfg.TURN.OnSessionEnd(sess.id.Hex())
		}
		cancel()
		conn.CloseNow()
		s.counters.connections.Add(-1)
	}()
	if sess.handshake() {
		sess.serve()
	}
}

// drop forgets a session when its connection ends; true if it was its
// peer's current registration (not one replaced by a newer connection).
func (s *Server) drop(sess *session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, sess)
	if !sess.registered {
		s.handshakes--
		s.pending.add(sess.addr, -1)
		return false
	}
	if sess.countedPeer {
		sess.task.addrs.add(sess.addr, -1)
		sess.countedPeer = false
	}
	current := s.peers[sess.id] == sess
	if current {
		delete(s.peers, sess.id)
	}
	if sess.task.peers[sess.id] == sess {
		delete(sess.task.peers, sess.id)
		sess.task.progress.forget(sess.id)
		sess.task.lastLeft = s.now()
	}
	return current
}

// TURNUserLive reports whether user (a peer ID's hex, the user part of
// its TURN credentials) has a registered session: TURN.TieToSessions.
func (s *Server) TURNUserLive(user string) bool {
	id, err := ident.ParsePeer(user)
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peers[id] != nil
}

// turnUserAddr returns the client address of user's registered session
// (invalid: none): TURN.TieToSessions charges its allocations to it.
func (s *Server) turnUserAddr(user string) netip.Addr {
	id, err := ident.ParsePeer(user)
	if err != nil {
		return netip.Addr{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess := s.peers[id]; sess != nil {
		return sess.ip
	}
	return netip.Addr{}
}

// stunHost returns the host part of a request's Host if it is an IP
// address or a DNS name (letters, digits, '-', '.'), else "": it goes
// into a stun: URL in the welcome, and a client's odd Host must not make
// that invalid.
func stunHost(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return ""
		}
		return ip.String()
	}
	if host == "" || len(host) > 253 || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") || strings.Contains(host, "..") {
		return ""
	}
	for _, c := range host {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return ""
		}
	}
	return host
}

// remoteIP parses a request's RemoteAddr (invalid if it does not parse).
func remoteIP(remote string) netip.Addr {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap().WithZone("")
}

// serve reads and handles the registered peer's messages until the
// connection ends.
func (sess *session) serve() {
	for {
		b, ok := sess.read(sess.srv.cfg.IdleTimeout, signal.CodeIdleTimeout)
		if !ok {
			return
		}
		m, ok := sess.decode(b)
		if !ok {
			continue
		}
		switch m.Type {
		case signal.MsgRelay:
			sess.srv.relay(sess, m.Relay)
		case signal.MsgConnected:
			sess.srv.bootstrapDone(sess, m.Connected.Peer)
		case signal.MsgSummary:
			sess.summary(m.Summary)
		case signal.MsgPing:
			sess.send(&signal.Message{Type: signal.MsgPong})
		case signal.MsgBye:
			sess.srv.logf("signal server: peer %v left: %s", sess.id, m.Bye.Reason)
			sess.conn.Close(websocket.StatusNormalClosure, "bye")
			return
		default:
			sess.refuse(signal.CodeUnexpected, "unexpected "+m.Type.String(), true)
		}
		if sess.ctx.Err() != nil {
			return
		}
	}
}

// read returns the next message, rate-limited; false when the connection
// has ended. When nothing comes within timeout the peer gets an error
// with timeoutCode and the connection is closed.
func (sess *session) read(timeout time.Duration, timeoutCode signal.Code) ([]byte, bool) {
	for {
		timer := time.AfterFunc(timeout, func() {
			sess.srv.counters.refuse(timeoutCode)
			sess.srv.logf("signal server: %s: %v", sess.who(), timeoutCode)
			sess.closeWith(timeoutCode, fmt.Sprintf("nothing received for %v", timeout))
		})
		typ, b, err := sess.conn.Read(sess.ctx)
		if !timer.Stop() {
			return nil, false // timed out: closing
		}
		switch {
		case errors.Is(err, websocket.ErrMessageTooBig):
			sess.srv.counters.refuse(signal.CodeTooLarge) // the library has closed with 1009
			sess.srv.logf("signal server: %s: message over %d bytes", sess.who(), sess.srv.cfg.MaxMessageSize)
			return nil, false
		case err != nil:
			return nil, false
		}
		if !sess.bucket.allow(time.Now()) {
			now := time.Now()
			reply := now.Sub(sess.lastRateErr) >= time.Second
			if reply {
				sess.lastRateErr = now
			}
			sess.refuse(signal.CodeRateLimited, "too many messages; dropped", reply)
			if sess.ctx.Err() != nil {
				return nil, false
			}
			continue
		}
		if typ != websocket.MessageText {
			sess.refuse(signal.CodeMalformed, "binary message", true)
			if sess.ctx.Err() != nil {
				return nil, false
			}
			continue
		}
		return b, true
	}
}

// decode decodes a registered peer's message, refusing bad ones.
func (sess *session) decode(b []byte) (*signal.Message, bool) {
	m, err := signal.Decode(b)
	switch {
	case errors.Is(err, signal.ErrVersion):
		sess.srv.counters.refuse(signal.CodeVersion)
		sess.closeWith(signal.CodeVersion, err.Error())
		return nil, false
	case err != nil:
		sess.refuse(signal.CodeMalformed, err.Error(), true)
		return nil, false
	}
	return m, true
}

// refuse counts a refused message, optionally tells the peer, and closes
// the connection once it has MaxStrikes refusals.
func (sess *session) refuse(code signal.Code, text string, reply bool) {
	sess.srv.counters.refuse(code)
	sess.strikes++
	if sess.strikes >= sess.srv.cfg.MaxStrikes {
		sess.srv.counters.refuse(signal.CodeTooManyErrors)
		sess.srv.logf("signal server: %s: %d refused messages, disconnecting (last: %v)", sess.who(), sess.strikes, code)
		sess.closeWith(signal.CodeTooManyErrors, "too many refused messages")
		return
	}
	if reply {
		sess.sendError(code, text)
	}
}

// sendError queues an error message (dropped if the queue is full).
func (sess *session) sendError(code signal.Code, text string) {
	sess.send(&signal.Message{Type: signal.MsgError, Error: &signal.Refusal{Code: code, Text: clip(text)}})
}

// send queues m for the writer without blocking; false if the queue is
// full or the connection has ended.
func (sess *session) send(m *signal.Message) bool {
	b, err := signal.Encode(m)
	if err != nil {
		sess.srv.logf("signal server: %s: encode %v: %v", sess.who(), m.Type, err)
		return false
	}
	return sess.enqueue(b)
}

func (sess *session) enqueue(b []byte) bool {
	select {
	case <-sess.ctx.Done():
		return false
	default:
	}
	select {
	case sess.out <- b:
		return true
	default:
		return false
	}
}

// writeLoop writes queued messages until the session ends.
func (sess *session) writeLoop() {
	for {
		select {
		case <-sess.ctx.Done():
			return
		case b := <-sess.out:
			ctx, cancel := context.WithTimeout(sess.ctx, sess.srv.cfg.WriteTimeout)
			err := sess.conn.Write(ctx, websocket.MessageText, b)
			cancel()
			if err != nil {
				sess.cancel()
				sess.conn.CloseNow()
				return
			}
		}
	}
}

// closeWith sends an error message with code and closes the connection
// (once; later calls do nothing). Safe from any goroutine.
func (sess *session) closeWith(code signal.Code, text string) {
	sess.once.Do(func() {
		if b, err := signal.Encode(&signal.Message{Type: signal.MsgError,
			Error: &signal.Refusal{Code: code, Text: clip(text)}}); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), sess.srv.cfg.WriteTimeout)
			sess.conn.Write(ctx, websocket.MessageText, b)
			cancel()
		}
		status := websocket.StatusPolicyViolation
		if code == signal.CodeShutdown {
			status = websocket.StatusGoingAway
		}
		sess.conn.Close(status, code.String())
		sess.cancel()
	})
}

// kill drops the connection at once, without a close handshake.
func (sess *session) kill() {
	sess.cancel()
	sess.netConn.Close()
}

// who names the session in logs.
func (sess *session) who() string {
	if !sess.id.IsZero() {
		return "peer " + sess.id.String()
	}
	return sess.remote
}

// clip bounds an error text to the protocol's limit.
func clip(s string) string {
	if len(s) <= signal.MaxTextLen {
		return s
	}
	n := signal.MaxTextLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
