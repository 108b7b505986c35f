package gossip

import "errors"

// Errors returned by the package, wrapped with %w; test with errors.Is.
var (
	// ErrConfig: the configuration is invalid.
	ErrConfig = errors.New("gossip: invalid configuration")
	// ErrPeers: a view that holds self or repeats a peer.
	ErrPeers = errors.New("gossip: invalid peer view")
	// ErrNotForMe: a message addressed to another peer or from self.
	ErrNotForMe = errors.New("gossip: message addressed to another peer")
	// ErrBadModel: a model of another architecture or length, or with
	// non-finite parameters.
	ErrBadModel = errors.New("gossip: model refused")
	// ErrNoUpdate: ReportTrained without an outstanding Update.
	ErrNoUpdate = errors.New("gossip: no update outstanding")
	// ErrSchedule: a node index or round outside the schedule, or models
	// of the wrong count or length.
	ErrSchedule = errors.New("gossip: invalid schedule arguments")

	// ErrCodecVersion: the encoded message has an unknown codec version.
	ErrCodecVersion = errors.New("gossip: unknown codec version")
	// ErrUnknownType: the message type is not one this codec knows.
	ErrUnknownType = errors.New("gossip: unknown message type")
	// ErrTruncated: the input ends before the message does.
	ErrTruncated = errors.New("gossip: truncated message")
	// ErrTrailing: bytes follow the message.
	ErrTrailing = errors.New("gossip: trailing bytes after message")
	// ErrOversized: the input or a field exceeds its limit.
	ErrOversized = errors.New("gossip: message or field too large")
	// ErrField: a field holds a value the protocol does not allow.
	ErrField = errors.New("gossip: invalid field value")
)
