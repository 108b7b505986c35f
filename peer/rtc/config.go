package rtc

import (
	"fmt"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
	"github.com/peerlearn/peerlearn/types/key"
)

// Config parameterises a Manager.
type Config struct {
	// Identity is this peer's ed25519 key pair; its ID is the overlay ID.
	// Required.
	Identity key.Pair
	// Spaces is the overlay's L: routed signalling scores a peer by its
	// closest coordinate to the target over these ring spaces.
	Spaces int
	// Task is the task hash transfers must carry; a manifest for another
	// task is refused. Zero accepts any.
	Task ident.Task
	// ICEServers are the STUN/TURN servers (from the signalling
	// server's welcome). May be empty (host candidates only).
	ICEServers []signal.ICEServer
	// LoopbackOnly restricts native ICE to 127.0.0.1 over UDP4 (tests,
	// single-machine demos). Ignored under GOOS=js, where the browser
	// chooses candidates.
	LoopbackOnly bool
	// RelayOnly connects only through the TURN relays of ICEServers (ICE
	// transport policy "relay", natively and in a browser): for measuring
	// a relay, or hiding a peer's addresses from its neighbours.
	RelayOnly bool
	// ICEDisconnectedTimeout, ICEFailedTimeout and ICEKeepalive tune
	// native ICE liveness (how fast a killed peer's connection is
	// dropped). Ignored under GOOS=js.
	ICEDisconnectedTimeout time.Duration
	ICEFailedTimeout       time.Duration
	ICEKeepalive           time.Duration
	// GatherTimeout bounds ICE candidate gathering before an offer or
	// answer is sent (non-trickle: the SDP carries every candidate).
	GatherTimeout time.Duration
	// ConnectTimeout: a connection not open this long after it was
	// started is abandoned (its queued frames dropped).
	ConnectTimeout time.Duration
	// RetryBackoff is the wait after a failed connection attempt before
	// another to the same peer; it doubles per failure up to
	// MaxRetryBackoff. Sends in between fail fast with ErrUnreachable.
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
	// QueueFrames bounds the control frames queued for a peer whose
	// connection is not open yet; more are dropped (ErrQueueFull).
	QueueFrames int
	// MaxConnections bounds the connections (open or being set up) at
	// once: further offers are refused and sends to further peers fail
	// (ErrUnreachable) until some close.
	MaxConnections int
	// MaxPendingOffers bounds the offers being answered at once (a
	// peer connection and an ICE gathering each); MaxOffersPerOrigin
	// bounds those that came through one neighbour (or through the
	// signalling server). Further offers are refused (ErrCapacity).
	MaxPendingOffers   int
	MaxOffersPerOrigin int
	// MaxServerOffers offers relayed by the signalling server are
	// answered per sender within ServerOfferPeriod; a dead one (no
	// candidate that could work, or not open within ConnectTimeout) is a
	// strike and uses the sender's budget up (policy_serveroffers.go).
	// 0: no per-sender bound.
	MaxServerOffers   int
	ServerOfferPeriod time.Duration
	// MaxStrikes refused frames from one peer within StrikeWindow ban it
	// for BanTime: its connection is closed, its offers refused.
	MaxStrikes   int
	StrikeWindow time.Duration
	BanTime      time.Duration
	// MaxFrameRate bounds one peer's signed control frames per second,
	// in bursts of FrameBurst; frames over it are refused before their
	// signature is checked, each a strike. 0: no bound.
	MaxFrameRate float64
	FrameBurst   int
	// Grace: a connection to a peer that is not (or no longer) an
	// overlay neighbour is closed this long after it stopped being one
	// (or was opened).
	Grace time.Duration
	// MaxControlPayload bounds a control frame's payload.
	MaxControlPayload int
	// ChunkSize is the model bytes per chunk frame.
	ChunkSize int
	// LowWater is the data channel's BufferedAmountLowThreshold; a
	// paused sender resumes when the buffer drains below it.
	LowWater int
	// HighWater: a transfer pauses while more than this is buffered.
	HighWater int
	// MaxQueueDelay paces transfers below HighWater when the channel
	// drains slowly: a transfer pauses while the buffer holds more than
	// this much time's worth of sending at the rate measured so far (at
	// least two chunks). Control frames (heartbeats) queue behind those
	// bytes, so this bounds their extra delay on a slow or starved link.
	MaxQueueDelay time.Duration
	// MaxBuffered: a control frame is dropped (counted) rather than
	// queued behind more than this in the channel's buffer.
	MaxBuffered int
	// MaxTransferBytes bounds one transfer's payload (both directions).
	MaxTransferBytes int64
	// MaxIncoming bounds the transfers being received from one peer at
	// once (its memory scope, in transfers); a further manifest
	// supersedes the oldest of them, which is dropped.
	MaxIncoming int
	// IncomingTransfers bounds the memory of every incoming transfer
	// together (the resource manager's system scope), in transfers of
	// the transfer limit (MaxTransferBytes, or SetTransferLimit's).
	IncomingTransfers int
	// TransferTimeout: an incoming transfer that makes no progress this
	// long is dropped (never applied); an outgoing one whose result does
	// not come this long after its last chunk is retried.
	TransferTimeout time.Duration
	// TransferRetries is how often a failed outgoing transfer is sent
	// again before it is reported failed.
	TransferRetries int
	// RouteTTL bounds the hops of routed signalling.
	RouteTTL int
	// CrumbTTL: how long "origin O was heard via neighbour P" is kept to
	// route signalling back towards O.
	CrumbTTL time.Duration
	// SessionMaxAge: a signed offer or answer older (or further in the
	// future) than this is refused as stale.
	SessionMaxAge time.Duration
	// EventBuffer is the capacity of the Events channel.
	EventBuffer int
	// Logf, if not nil, receives diagnostics. It is called from the
	// manager's and pion's goroutines, concurrently: it must be safe for
	// concurrent use and must not block or call back into the Manager.
	Logf func(format string, args ...any)
}

// DefaultConfig returns the defaults; set Identity (and Task, ICEServers,
// LoopbackOnly as the deployment needs).
func DefaultConfig() Config {
	return Config{
		Identity:               key.Pair{},                     // required: set by the caller
		Spaces:                 overlay.DefaultConfig().Spaces, // L = 5, as the overlay
		Task:                   ident.Task{},                   // accept any task
		ICEServers:             nil,                            // host candidates only
		LoopbackOnly:           false,                          // all interfaces
		RelayOnly:              false,                          // direct wherever ICE finds a way
		ICEDisconnectedTimeout: 2 * time.Second,                // a killed peer is noticed within seconds ...
		ICEFailedTimeout:       5 * time.Second,                // ... and dropped (overlay heartbeats fail at 1.5 s anyway)
		ICEKeepalive:           500 * time.Millisecond,         // keeps the above meaningful
		GatherTimeout:          5 * time.Second,                // host candidates take ms; STUN may take seconds
		ConnectTimeout:         15 * time.Second,               // several routed hops, two gatherings, ICE and DTLS
		RetryBackoff:           1 * time.Second,                // first wait after a failed attempt ...
		MaxRetryBackoff:        30 * time.Second,               // ... doubling up to this
		QueueFrames:            256,                            // a burst of overlay traffic while connecting
		MaxConnections:         128,                            // 2L = 10 neighbours, strays in their grace, attempts; far under a browser's limit
		MaxPendingOffers:       16,                             // a join brings a few offers at once, repairs fewer
		MaxOffersPerOrigin:     4,                              // one neighbour relays a share only
		MaxServerOffers:        2,                              // a newcomer's first try and one retry per contact ...
		ServerOfferPeriod:      5 * time.Minute,                // ... within this (a bootstrap window is 30 s)
		MaxStrikes:             100,                            // honest peers refuse a handful an hour
		StrikeWindow:           10 * time.Second,               // ... within this
		BanTime:                5 * time.Minute,                // then the peer waits this long
		MaxFrameRate:           200,                            // honest links send a few a second
		FrameBurst:             400,                            // ... and tens when signalling many newcomers
		Grace:                  10 * time.Second,               // a few heartbeat periods: repairs settle first
		MaxControlPayload:      64 << 10,                       // overlay messages are < 17 KiB, SDPs a few KiB
		ChunkSize:              64 << 10,                       // 64 KiB chunks: a data channel message may be at most 256 KiB
		LowWater:               1 << 20,                        // BufferedAmountLowThreshold 1 MiB
		HighWater:              4 << 20,                        // pause above 4 MiB buffered
		MaxQueueDelay:          250 * time.Millisecond,         // a sixth of the overlay's failure timeout
		MaxBuffered:            16 << 20,                       // control frames give up behind 16 MiB
		MaxTransferBytes:       64 << 20,                       // 16M float32 parameters
		MaxIncoming:            1,                              // a newer model supersedes the one in flight
		IncomingTransfers:      16,                             // 2L = 10 neighbours' models at once, and some
		TransferTimeout:        20 * time.Second,               // ~1 s stalls happen; 20 s of none is a dead transfer
		TransferRetries:        2,                              // three attempts in all
		RouteTTL:               16,                             // greedy routes in small overlays take a few hops
		CrumbTTL:               30 * time.Second,               // a join or repair completes well within
		SessionMaxAge:          2 * time.Minute,                // clocks of peers agree to within this
		EventBuffer:            1024,                           // bursts of messages between loop turns
		Logf:                   nil,                            // silent
	}
}

// Validate reports the first field out of range.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
	}
	switch {
	case !c.Identity.Valid():
		return bad("Identity has no key")
	case c.Spaces < 1 || c.Spaces > overlay.MaxSpaces:
		return bad("Spaces = %d, want 1..%d", c.Spaces, overlay.MaxSpaces)
	case c.ICEDisconnectedTimeout <= 0 || c.ICEFailedTimeout <= 0 || c.ICEKeepalive <= 0:
		return bad("ICE timeouts must be positive")
	case c.GatherTimeout <= 0:
		return bad("GatherTimeout = %v", c.GatherTimeout)
	case c.ConnectTimeout <= c.GatherTimeout:
		return bad("ConnectTimeout = %v, want > GatherTimeout", c.ConnectTimeout)
	case c.RetryBackoff <= 0 || c.MaxRetryBackoff < c.RetryBackoff:
		return bad("RetryBackoff = %v, MaxRetryBackoff = %v", c.RetryBackoff, c.MaxRetryBackoff)
	case c.QueueFrames < 1:
		return bad("QueueFrames = %d", c.QueueFrames)
	case c.MaxConnections < 1:
		return bad("MaxConnections = %d", c.MaxConnections)
	case c.MaxPendingOffers < 0 || c.MaxOffersPerOrigin < 0 || c.MaxServerOffers < 0 || c.MaxStrikes < 0:
		return bad("offer budgets and MaxStrikes must not be negative")
	case c.MaxServerOffers > 0 && c.ServerOfferPeriod <= 0:
		return bad("ServerOfferPeriod = %v", c.ServerOfferPeriod)
	case c.MaxStrikes > 0 && (c.StrikeWindow <= 0 || c.BanTime <= 0):
		return bad("StrikeWindow = %v, BanTime = %v", c.StrikeWindow, c.BanTime)
	case c.MaxFrameRate < 0 || c.MaxFrameRate > 0 && c.FrameBurst < 1:
		return bad("MaxFrameRate = %v, FrameBurst = %d", c.MaxFrameRate, c.FrameBurst)
	case c.Grace < 0:
		return bad("Grace = %v", c.Grace)
	case c.MaxControlPayload < 1024 || c.MaxControlPayload > MaxFrameSize-controlOverhead:
		return bad("MaxControlPayload = %d, want 1024..%d", c.MaxControlPayload, MaxFrameSize-controlOverhead)
	case c.ChunkSize < 1024 || c.ChunkSize > MaxFrameSize-chunkHeader:
		return bad("ChunkSize = %d, want 1024..%d", c.ChunkSize, MaxFrameSize-chunkHeader)
	case c.LowWater < c.ChunkSize || c.HighWater <= c.LowWater || c.MaxBuffered < c.HighWater:
		return bad("want ChunkSize <= LowWater < HighWater <= MaxBuffered, got %d, %d, %d, %d", c.ChunkSize, c.LowWater, c.HighWater, c.MaxBuffered)
	case c.MaxQueueDelay <= 0:
		return bad("MaxQueueDelay = %v", c.MaxQueueDelay)
	case c.MaxTransferBytes < 1:
		return bad("MaxTransferBytes = %d", c.MaxTransferBytes)
	case c.MaxIncoming < 1:
		return bad("MaxIncoming = %d", c.MaxIncoming)
	case c.IncomingTransfers < c.MaxIncoming:
		return bad("IncomingTransfers = %d, want >= MaxIncoming = %d", c.IncomingTransfers, c.MaxIncoming)
	case c.TransferTimeout <= 0:
		return bad("TransferTimeout = %v", c.TransferTimeout)
	case c.TransferRetries < 0:
		return bad("TransferRetries = %d", c.TransferRetries)
	case c.RouteTTL < 1 || c.RouteTTL > MaxRouteHops:
		return bad("RouteTTL = %d, want 1..%d", c.RouteTTL, MaxRouteHops)
	case c.CrumbTTL <= 0:
		return bad("CrumbTTL = %v", c.CrumbTTL)
	case c.SessionMaxAge <= 0:
		return bad("SessionMaxAge = %v", c.SessionMaxAge)
	case c.EventBuffer < 1:
		return bad("EventBuffer = %d", c.EventBuffer)
	}
	for _, s := range c.ICEServers {
		if err := s.Validate(); err != nil {
			return bad("ICE server: %v", err)
		}
	}
	return nil
}
