package plexus

import "errors"

// Errors returned by the package, wrapped with %w; test with errors.Is.
var (
	// ErrConfig: the configuration is invalid.
	ErrConfig = errors.New("plexus: invalid configuration")
	// ErrNotForMe: a message is addressed to another peer, or claims to
	// come from this one.
	ErrNotForMe = errors.New("plexus: message addressed to another peer")
	// ErrBadModel: a model of another architecture or length, or with
	// non-finite parameters.
	ErrBadModel = errors.New("plexus: model refused")
	// ErrStale: a message about a round too far behind to remember.
	ErrStale = errors.New("plexus: message for a forgotten round")
	// ErrNoTask: ReportTrained or ReportAggregated for a round with no
	// such task outstanding.
	ErrNoTask = errors.New("plexus: no such task outstanding")
	// ErrBudget: a trained model for a new round while MaxOpenRounds
	// collections are open (each holds up to s models).
	ErrBudget = errors.New("plexus: too many rounds collecting at once")
	// ErrStarted: Start called twice.
	ErrStarted = errors.New("plexus: already started")
	// ErrView: a member with a zero ID or zero bandwidth.
	ErrView = errors.New("plexus: invalid view member")

	// ErrCodecVersion: the encoded message has an unknown codec version.
	ErrCodecVersion = errors.New("plexus: unknown codec version")
	// ErrUnknownType: the message type is not one this codec knows.
	ErrUnknownType = errors.New("plexus: unknown message type")
	// ErrTruncated: the input ends before the message does.
	ErrTruncated = errors.New("plexus: truncated message")
	// ErrTrailing: bytes follow the message.
	ErrTrailing = errors.New("plexus: trailing bytes after message")
	// ErrOversized: the input or a field exceeds its limit.
	ErrOversized = errors.New("plexus: message or field too large")
	// ErrField: a field holds a value the protocol does not allow.
	ErrField = errors.New("plexus: invalid field value")
)
