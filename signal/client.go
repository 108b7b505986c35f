package signal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Event is something the server sent after the welcome: exactly one field
// is set.
type Event struct {
	// Relay is signalling relayed from Relay.From.
	Relay *Relay
	// Refusal says the server refused something this client sent (a
	// relay to a peer that is gone or outside the bootstrap window, a
	// rate-limited message); the connection stays up unless the code
	// says otherwise (then Done follows).
	Refusal *Refusal
}

// Client is a registered peer's connection to the signalling server.
//
// Concurrency: every method is safe for concurrent use. Events are
// delivered in arrival order on one channel, by one goroutine; the channel
// must be drained (the client stops reading from the server while it is
// full) and is closed when the connection ends, after which Err says why.
// No callback runs on the client's goroutines.
type Client struct {
	cfg     ClientConfig
	conn    *websocket.Conn
	id      ident.Peer
	welcome Welcome
	events  chan Event
	done    chan struct{}
	ctx     context.Context // cancelled when the client finishes
	cancel  context.CancelFunc

	mu  sync.Mutex
	err error // why the connection ended; set once
}

// Dial connects to the signalling server at url (ws:// or wss://; under
// GOOS=js also http(s)://), answers the challenge with id's signature,
// registers for task t and returns once welcomed. A refusal comes back as
// a *Refusal (errors.Is(err, ErrRefused)).
func Dial(ctx context.Context, url string, id Identity, t ident.Task, cfg ClientConfig) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !id.Valid() {
		return nil, fmt.Errorf("%w: identity without a key", ErrConfig)
	}
	if t.IsZero() {
		return nil, fmt.Errorf("%w: zero task ID", ErrConfig)
	}
	hctx, hcancel := context.WithTimeout(ctx, cfg.HandshakeTimeout)
	defer hcancel()
	conn, resp, err := websocket.Dial(hctx, url, dialOptions(cfg))
	if err != nil {
		if resp != nil && (resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests) {
			return nil, fmt.Errorf("%w (HTTP %d): dial %s: %w", ErrBusy, resp.StatusCode, url, err)
		}
		return nil, fmt.Errorf("signal: dial %s: %w", url, err)
	}
	conn.SetReadLimit(MaxMessageSize)
	welcome, err := handshake(hctx, conn, id, t, cfg)
	if err != nil {
		conn.CloseNow()
		return nil, err
	}
	cctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		cfg: cfg, conn: conn, id: id.ID(), welcome: *welcome,
		events: make(chan Event, cfg.EventBuffer), done: make(chan struct{}),
		ctx: cctx, cancel: cancel,
	}
	go c.readLoop()
	go c.pingLoop()
	return c, nil
}

// handshake reads the challenge, sends the hello and reads the welcome.
func handshake(ctx context.Context, conn *websocket.Conn, id Identity, t ident.Task, cfg ClientConfig) (*Welcome, error) {
	m, err := readMessage(ctx, conn)
	if err != nil {
		return nil, err
	}
	if m.Type != MsgChallenge {
		return nil, fmt.Errorf("%w: got %v, want challenge", ErrProtocol, m.Type)
	}
	hello := SignHello(id, m.Challenge.Nonce, t)
	hello.Token, hello.Observer = cfg.Token, cfg.Observer
	if hello.PoW, err = solvePoW(ctx, t, id.PublicKey(), m.Challenge.PoWBits, cfg.Yield); err != nil {
		return nil, err
	}
	b, err := Encode(&Message{Type: MsgHello, Hello: hello})
	if err != nil {
		return nil, err
	}
	if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
		return nil, fmt.Errorf("%w: send hello: %w", ErrClosed, err)
	}
	m, err = readMessage(ctx, conn)
	if err != nil {
		return nil, err
	}
	if m.Type != MsgWelcome {
		return nil, fmt.Errorf("%w: got %v, want welcome", ErrProtocol, m.Type)
	}
	w := m.Welcome
	got, err := w.Task.ID()
	if err != nil || got != t {
		return nil, fmt.Errorf("%w: welcome for task %v, asked for %v (%v)", ErrProtocol, got, t, err)
	}
	if slices.Contains(w.Contacts, id.ID()) {
		return nil, fmt.Errorf("%w: welcome lists this peer as its own contact", ErrProtocol)
	}
	if err := checkWelcomeToken(w, id.ID(), t, time.Now()); err != nil {
		return nil, err
	}
	return w, nil
}

// readMessage reads and decodes one message during the handshake; an
// error message comes back as its *Refusal.
func readMessage(ctx context.Context, conn *websocket.Conn) (*Message, error) {
	typ, b, err := conn.Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrClosed, err)
	}
	if typ != websocket.MessageText {
		return nil, fmt.Errorf("%w: binary message", ErrProtocol)
	}
	m, err := Decode(b)
	if err != nil {
		return nil, err
	}
	if m.Type == MsgError {
		return nil, m.Error
	}
	return m, nil
}

// ID returns this peer's ID.
func (c *Client) ID() ident.Peer { return c.id }

// Welcome returns the server's welcome (a copy): contacts, ICE servers,
// the task spec and the bootstrap window.
func (c *Client) Welcome() Welcome {
	w := c.welcome
	w.Contacts = slices.Clone(w.Contacts)
	w.ICEServers = slices.Clone(w.ICEServers)
	return w
}

// Events returns the channel of relayed signalling and refusals; see the
// Client's concurrency notes. It is closed when the connection ends.
func (c *Client) Events() <-chan Event { return c.events }

// Done is closed when the connection has ended and Events is closed.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended (wrapping ErrClosed, or a
// *Refusal such as CodeShutdown), or nil while it is up.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Send relays data of the given kind to peer to. The server refuses
// (asynchronously, as an Event) relays outside the bootstrap window.
func (c *Client) Send(ctx context.Context, to ident.Peer, kind RelayKind, data string) error {
	return c.write(ctx, &Message{Type: MsgRelay, Relay: &Relay{To: to, Kind: kind, Data: data}})
}

// Connected tells the server a data channel with peer is open: to one
// of this peer's contacts, its first connection (the bootstrap window
// closes and the server relays no more for this peer); to a new peer
// whose offer came through the server, the confirmation that makes the
// server believe that peer's own claim.
func (c *Client) Connected(ctx context.Context, peer ident.Peer) error {
	return c.write(ctx, &Message{Type: MsgConnected, Connected: &Connected{Peer: peer}})
}

// Close says bye and closes the connection; Events is closed when it
// returns. Safe to call more than once and concurrently.
func (c *Client) Close() error {
	c.setErr(fmt.Errorf("%w: closed by this side", ErrClosed))
	select {
	case <-c.done:
		return nil
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.WriteTimeout)
	defer cancel()
	_ = c.write(ctx, &Message{Type: MsgBye, Bye: &Bye{Reason: "leaving"}})
	_ = c.conn.Close(websocket.StatusNormalClosure, "bye") // fails only if already closed
	c.cancel()
	<-c.done
	return nil
}

// write encodes m and writes it within WriteTimeout.
func (c *Client) write(ctx context.Context, m *Message) error {
	b, err := Encode(m)
	if err != nil {
		return err
	}
	select {
	case <-c.done:
		return c.closedErr()
	default:
	}
	wctx, cancel := context.WithTimeout(ctx, c.cfg.WriteTimeout)
	defer cancel()
	if err := c.conn.Write(wctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return nil
}

func (c *Client) closedErr() error {
	if err := c.Err(); err != nil {
		return err
	}
	return ErrClosed
}

// setErr records the first reason the connection ended.
func (c *Client) setErr(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

// readLoop delivers events until the connection ends; it alone sends on
// and closes events.
func (c *Client) readLoop() {
	var fatal *Refusal // the last refusal that ends the connection
	defer func() {
		c.cancel()
		c.conn.CloseNow()
		close(c.events)
		close(c.done)
	}()
	for {
		ctx, cancel := context.WithTimeout(c.ctx, c.cfg.ReadTimeout)
		typ, b, err := c.conn.Read(ctx)
		cancel()
		if err != nil {
			if fatal != nil {
				c.setErr(fmt.Errorf("%w: %w", ErrClosed, fatal))
			}
			c.setErr(fmt.Errorf("%w: %w", ErrClosed, err))
			return
		}
		if typ != websocket.MessageText {
			c.logf("signal: dropped a binary message from the server")
			continue
		}
		m, err := Decode(b)
		if err != nil {
			if errors.Is(err, ErrVersion) {
				c.setErr(fmt.Errorf("%w: %w", ErrProtocol, err))
				return
			}
			c.logf("signal: dropped a message from the server: %v", err)
			continue
		}
		var ev Event
		switch m.Type {
		case MsgRelay:
			if m.Relay.From.IsZero() || m.Relay.To != c.id {
				c.logf("signal: dropped a relay from %v to %v", m.Relay.From, m.Relay.To)
				continue
			}
			ev.Relay = m.Relay
		case MsgError:
			if closesConnection(m.Error.Code) {
				fatal = m.Error
			}
			ev.Refusal = m.Error
		case MsgBye:
			c.setErr(fmt.Errorf("%w: the server said bye: %s", ErrClosed, m.Bye.Reason))
			return
		case MsgPong:
			continue
		default:
			c.logf("signal: dropped an unexpected %v from the server", m.Type)
			continue
		}
		select {
		case c.events <- ev:
		case <-c.ctx.Done():
			return
		}
	}
}

// closesConnection reports the codes after which the server closes.
func closesConnection(code Code) bool {
	switch code {
	case CodeTooLarge, CodeIdleTimeout, CodeReplaced, CodeShutdown, CodeTooManyErrors, CodeVersion:
		return true
	}
	return false
}

// pingLoop sends keepalives until the client finishes.
func (c *Client) pingLoop() {
	t := time.NewTicker(c.cfg.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
			if err := c.write(c.ctx, &Message{Type: MsgPing}); err != nil {
				return
			}
		}
	}
}

func (c *Client) logf(format string, args ...any) {
	if c.cfg.Logf != nil {
		c.cfg.Logf(format, args...)
	}
}
