package signal

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"time"
)

// ClientConfig configures Dial.
type ClientConfig struct {
	// HandshakeTimeout bounds dialling, the challenge, the hello and the
	// welcome together.
	HandshakeTimeout time.Duration
	// PingInterval is how often the client sends a keepalive; keep it
	// well under the server's idle timeout.
	PingInterval time.Duration
	// ReadTimeout: when nothing (not even a pong) arrives for this long
	// the connection is taken as dead and closed. More than PingInterval.
	ReadTimeout time.Duration
	// WriteTimeout bounds one message write.
	WriteTimeout time.Duration
	// EventBuffer is the capacity of the Events channel.
	EventBuffer int
	// Header holds extra HTTP headers for the websocket handshake (native
	// builds only; a browser sets its own Origin). May be nil.
	Header http.Header
	// RootCAs, if not nil, are the certificates a wss:// server's must
	// chain to instead of the system's (native builds only; a browser
	// uses its own trust store): a LAN demo's self-signed certificate.
	RootCAs *x509.CertPool
	// Token is an admission token this peer already holds, presented in
	// the hello so that a re-join in the same epoch keeps its place and
	// does not count as a new admission. May be nil.
	Token []byte
	// Observer registers as an observer (Hello.Observer): no contact
	// for anyone, not counted among the task's peers.
	Observer bool
	// Logf, if not nil, receives messages the client drops. It is called
	// from the client's reader goroutine (one per Client): it must not
	// block, and must be safe for concurrent use if shared by clients.
	Logf func(format string, args ...any)
	// Yield, if not nil, is called between chunks of the admission's
	// proof of work (powChunk nonces). Go's wasm runtime does not preempt
	// a computing goroutine, so a browser peer hands its event loop a
	// turn there: its page, its links and its training go on while it
	// pays for an admission (at joining, and at a move with live links).
	Yield func()
}

// DefaultClientConfig returns defaults matching the server's defaults.
func DefaultClientConfig() ClientConfig {
	return ClientConfig{
		HandshakeTimeout: 10 * time.Second, // under the server's 10 s hello deadline plus dialling
		PingInterval:     20 * time.Second, // a third of the server's 60 s idle timeout
		ReadTimeout:      65 * time.Second, // three missed pongs: the server or the path is gone
		WriteTimeout:     10 * time.Second, // a slow but live server accepts a message by then
		EventBuffer:      32,               // a few SDPs and a burst of candidates
		Header:           nil,              // no extra headers
		RootCAs:          nil,              // the system's roots
		Token:            nil,              // a first admission
		Observer:         false,            // a peer of the overlay
		Logf:             nil,              // silent
	}
}

// Validate checks every field.
func (c ClientConfig) Validate() error {
	switch {
	case c.HandshakeTimeout <= 0:
		return fmt.Errorf("%w: HandshakeTimeout %v", ErrConfig, c.HandshakeTimeout)
	case c.PingInterval <= 0:
		return fmt.Errorf("%w: PingInterval %v", ErrConfig, c.PingInterval)
	case c.ReadTimeout <= c.PingInterval:
		return fmt.Errorf("%w: ReadTimeout %v must exceed PingInterval %v", ErrConfig, c.ReadTimeout, c.PingInterval)
	case c.WriteTimeout <= 0:
		return fmt.Errorf("%w: WriteTimeout %v", ErrConfig, c.WriteTimeout)
	case c.EventBuffer < 0:
		return fmt.Errorf("%w: EventBuffer %d", ErrConfig, c.EventBuffer)
	}
	return nil
}
