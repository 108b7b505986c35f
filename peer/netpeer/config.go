package netpeer

import (
	"fmt"
	"net"
	"time"

	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
	"github.com/peerlearn/peerlearn/types/key"
)

// Config parameterises a Peer.
type Config struct {
	// SignalURL is the signalling server's websocket URL
	// (ws://host:port/signal): it hands out the first contact. SignalURLs
	// lists more servers for the same task (they share no state); the
	// peer registers with any that answers (servers.go). At least one of
	// the two is required.
	SignalURL  string
	SignalURLs []string
	// Task is the task to join (its ID, as the server hosts it).
	Task ident.Task
	// Identity is the peer's key pair; its ID is the overlay ID. Required.
	Identity key.Pair
	// Tick is the overlay's tick period; the overlay's timers count ticks.
	Tick time.Duration
	// MaxCatchUpTicks: when the peer's timer fires late (a browser wakes
	// a background tab's timers about once a second; a loaded machine
	// runs late), the ticks that passed are run at once, up to this many;
	// beyond that (a machine that slept) time resumes from now.
	MaxCatchUpTicks int
	// askMove, in tests, steps the neighbourhood check's request for a
	// new placement into the peer core (node.ReplaceAsked) each time it
	// receives: the move without a captured neighbourhood.
	askMove <-chan string
	// wakeEvery, in tests, is how often the loop's timer fires (0:
	// every Tick): a hidden tab's throttled timers, without a browser.
	wakeEvery time.Duration
	// Overlay configures the NDMP node; Rand may be nil (seeded from the
	// ID). Its Spaces (L) is the task's, set by the peer from the spec
	// the welcome brings (task.Spec.OverlaySpaces): every peer of a task
	// must use the same.
	Overlay overlay.Config
	// RTC configures the transport; Identity, Task, ICEServers and Spaces
	// are filled in by the peer (from the welcome).
	RTC rtc.Config
	// Signal configures the signalling client.
	Signal signal.ClientConfig
	// StatusAddr, if not empty, is a loopback host:port (port 0: any) on
	// which GET /status serves the peer's Status as JSON.
	StatusAddr string
	// LeaveLinger: after a graceful leave the Leave messages get this long
	// to reach the neighbours before the connections close.
	LeaveLinger time.Duration
	// RebootstrapAfter: a peer that had neighbours and has been without
	// any neighbour or open connection this long (it slept, or its
	// network dropped) cannot reach the overlay through it, since new
	// WebRTC connections are signalled over open ones: it registers with
	// the signalling server again and joins through the new contacts.
	// Failed attempts back off to a minute. 0: never.
	RebootstrapAfter time.Duration
	// BridgeEvery: with more than one signalling server, a member moves
	// its registration to a random other server about this often
	// (jittered 0.5x-1.5x) and joins through that server's contacts, so
	// that peers that bootstrapped through different servers meet and
	// the overlay's merge makes them one (servers.go). 0: never.
	BridgeEvery time.Duration
	// BridgeAlone says when a peer with a single signalling server
	// registers with it again and joins through its contacts (servers.go):
	// after a partition longer than the transport's grace the connections
	// across it are closed, and a merge probe's connection cannot be
	// signalled over the overlay (it does not reach across); a fresh
	// registration's bootstrap window lets the server relay to the
	// contacts it hands out, which are on either side. The default,
	// BridgeWhenSplit, does so only while the overlay remembers failed
	// neighbours that have not come back, backing off while nothing
	// changes.
	BridgeAlone BridgeMode
	// PlainPlacement runs the overlay without admission: coordinates
	// H(id, i), no peer records (overlay.Config.Admission nil). Off by
	// default: the peer takes its place from the server's admission token
	// (admission.go). Only for experiments; such a peer cannot join peers
	// that run with admission.
	PlainPlacement bool
	// Learn, if not nil, makes the peer train and exchange models.
	Learn *LearnConfig
	// Move bounds the moves to a new place (a new key, a new admission)
	// when the learner's neighbourhood check (learn.HealthConfig) finds
	// the neighbourhood captured (move.go, node/move.go); zero: the peer
	// never moves. Needs Learn.
	Move node.MoveConfig
	// OnMove, if not nil, hears the new key pair after each move (the
	// peer's new identity: `peerlearn peer -key` keeps it in its file);
	// called on Run's goroutine, must not block.
	OnMove func(key.Pair)
	// Observe, if not nil, makes the peer an observer instead
	// (observer.go): no overlay, no training, models pulled. Learn must
	// be nil.
	Observe *ObserveConfig
	// ShareProgress (opt-in) sends the signalling server a signed summary
	// of this peer's training (round, accuracy, samples, bytes sent) every
	// SummaryEvery, for the task's page and /metrics (summary.go). Nothing
	// in training depends on it. Needs Learn.
	ShareProgress bool
	SummaryEvery  time.Duration
	// Logf, if not nil, receives diagnostics, from the peer's goroutines
	// and the transport's: safe for concurrent use, must not block.
	Logf func(format string, args ...any)
}

// DefaultConfig returns the defaults; set SignalURL (or SignalURLs), Task
// and Identity.
func DefaultConfig() Config {
	return Config{
		SignalURL:        "",                           // required
		Task:             ident.Task{},                 // required
		Identity:         key.Pair{},                   // required
		Tick:             100 * time.Millisecond,       // overlay.DefaultConfig assumes 100 ms ticks
		MaxCatchUpTicks:  30,                           // 3 s: a throttled tab's 1 s wake-ups, with room
		Overlay:          overlay.DefaultConfig(),      // heartbeat 500 ms, failure after 1.5 s; L: the task's
		RTC:              rtc.DefaultConfig(),          // 64 KiB chunks, 1/4 MiB water marks
		Signal:           signal.DefaultClientConfig(), // matches the server's defaults
		StatusAddr:       "",                           // no status endpoint
		LeaveLinger:      500 * time.Millisecond,       // Leave frames are small: they go in milliseconds
		RebootstrapAfter: 5 * time.Second,              // past the 1.5 s failure timeout and a rejoin through contacts
		BridgeEvery:      time.Minute,                  // a few registrations per second at a server for thousands of peers
		PlainPlacement:   false,                        // admitted placement (admission.go)
		Learn:            nil,                          // overlay only
		Move:             node.MoveConfig{},            // never: a volunteer's choice (node.DefaultMoveConfig with -health)
		Observe:          nil,                          // a peer of the overlay
		ShareProgress:    false,                        // the volunteer opts in
		SummaryEvery:     DefaultSummaryEvery,          // 30 s: a few bytes a minute
		Logf:             nil,                          // silent
	}
}

// Validate reports the first field out of range.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
	}
	switch {
	case len(c.servers()) == 0:
		return bad("no SignalURL")
	case c.BridgeEvery < 0:
		return bad("BridgeEvery = %v", c.BridgeEvery)
	case c.BridgeAlone > BridgeNever:
		return bad("BridgeAlone = %v", c.BridgeAlone)
	case c.Task.IsZero():
		return bad("no Task")
	case !c.Identity.Valid():
		return bad("Identity has no key")
	case c.Tick <= 0:
		return bad("Tick = %v", c.Tick)
	case c.LeaveLinger < 0:
		return bad("LeaveLinger = %v", c.LeaveLinger)
	case c.ShareProgress && c.SummaryEvery <= 0:
		return bad("SummaryEvery = %v", c.SummaryEvery)
	case c.ShareProgress && c.Learn == nil:
		return bad("ShareProgress without Learn: an overlay-only peer has no progress to share")
	case c.Move.Max > 0 && c.Learn == nil:
		return bad("Move without Learn: only a learner's neighbourhood check asks to move")
	case c.RebootstrapAfter < 0:
		return bad("RebootstrapAfter = %v", c.RebootstrapAfter)
	case c.MaxCatchUpTicks < 1 || c.MaxCatchUpTicks > 10000:
		return bad("MaxCatchUpTicks = %d", c.MaxCatchUpTicks)
	}
	if err := c.Move.Validate(); err != nil {
		return bad("%v", err)
	}
	if c.StatusAddr != "" {
		host, _, err := net.SplitHostPort(c.StatusAddr)
		if err != nil {
			return bad("StatusAddr %q: %v", c.StatusAddr, err)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return bad("StatusAddr %q is not a loopback address", c.StatusAddr)
		}
	}
	if c.Overlay.Rand != nil {
		if err := c.Overlay.Validate(); err != nil {
			return bad("overlay: %v", err)
		}
	}
	rc := c.RTC
	rc.Identity = c.Identity
	if err := rc.Validate(); err != nil {
		return bad("rtc: %v", err)
	}
	if err := c.Signal.Validate(); err != nil {
		return bad("signal: %v", err)
	}
	if c.Learn != nil {
		if err := c.Learn.validate(); err != nil {
			return bad("learn: %v", err)
		}
	}
	if c.Observe != nil {
		if c.Learn != nil {
			return bad("an observer does not learn: Learn and Observe both set")
		}
		if err := c.Observe.validate(); err != nil {
			return bad("observe: %v", err)
		}
	}
	return nil
}
