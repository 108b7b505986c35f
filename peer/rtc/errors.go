package rtc

import "errors"

// Sentinel errors. Functions wrap them with %w and context; test with
// errors.Is.
var (
	// ErrConfig: a Config field is out of range.
	ErrConfig = errors.New("rtc: invalid config")
	// ErrMalformed: bytes that are not a valid frame, session, envelope,
	// manifest or result (short, inconsistent lengths, trailing data,
	// fields out of range).
	ErrMalformed = errors.New("rtc: malformed input")
	// ErrVersion: an encoding of a version this build does not speak.
	ErrVersion = errors.New("rtc: unknown version")
	// ErrUnknownKind: a frame type or control kind this build does not know.
	ErrUnknownKind = errors.New("rtc: unknown frame kind")
	// ErrTooLarge: input over its size limit.
	ErrTooLarge = errors.New("rtc: too large")
	// ErrBadSignature: a signature that does not verify, or a public key
	// that does not hash to the claimed peer ID.
	ErrBadSignature = errors.New("rtc: bad signature")
	// ErrReplay: a control frame whose sequence number was already seen
	// from that peer (or is older than the replay window), or a session
	// (offer/answer) seen before or outside its freshness window.
	ErrReplay = errors.New("rtc: replayed")
	// ErrMisaddressed: a session or envelope not meant for this peer.
	ErrMisaddressed = errors.New("rtc: misaddressed")
	// ErrQueueFull: a frame to a peer whose connection is still being set
	// up did not fit the bounded queue; it was dropped.
	ErrQueueFull = errors.New("rtc: send queue full")
	// ErrUnreachable: no connection to the peer and none can be started
	// now (a recent attempt failed: back-off), or the connection closed.
	ErrUnreachable = errors.New("rtc: peer unreachable")
	// ErrCapacity: an offer refused because this peer has
	// Config.MaxConnections connections already.
	ErrCapacity = errors.New("rtc: at capacity")
	// ErrResource: a reservation the resource manager refused (a
	// transfer's memory over the peer's or the system's budget).
	ErrResource = errors.New("rtc: over a resource budget")
	// ErrRateLimited: a control frame over its sender's frame budget
	// (Config.MaxFrameRate), refused before its signature was checked.
	ErrRateLimited = errors.New("rtc: over the frame rate")
	// ErrBanned: a peer banned for a while after too many refused frames.
	ErrBanned = errors.New("rtc: peer banned")
	// ErrClosed: the manager has been closed.
	ErrClosed = errors.New("rtc: closed")
	// ErrTransfer: a model transfer failed (timeout, hash mismatch,
	// refused, connection lost); it was not applied.
	ErrTransfer = errors.New("rtc: transfer failed")
)
