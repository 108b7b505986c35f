package mep

import (
	"fmt"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Config configures one peer's MEP state machine. Times are in ticks.
type Config struct {
	// ID is this peer. Must be set.
	ID ident.Peer
	// Task identifies the learning task; models with another task hash
	// are refused. Must be set.
	Task ident.Task
	// Arch is the architecture and shape tag of the model (1 to
	// MaxArchLen bytes); models with another tag are refused. Must be set.
	Arch string
	// NumParams is the model's parameter count (1 to MaxParams); models
	// of another length are refused. Must be set.
	NumParams int
	// Period is T_u, this peer's exchange and training period: a round
	// every Period ticks, offers to neighbour v every max(T_u, T_v).
	Period int
	// Tier is the peer's capacity tier, for reports (see AssignTiers,
	// which also gives the Period that goes with it).
	Tier Tier
	// DataSize is |D_u|, advertised with every model sent.
	DataSize int
	// DataConf is c_d in (0, 1] (aggregate.DataConfidence of the local
	// label histogram), advertised with every model sent.
	DataConf float64
	// OfferTimeout is how long an offer waits for MsgHave/MsgNeed; after
	// it the offer is forgotten and repeated at the next pair period.
	OfferTimeout int
	// TransferTimeout is how long a MsgNeed waits for the model; after
	// it a new offer of the same model is answered MsgNeed again.
	TransferTimeout int
	// JoinWait is how long a peer without a model of its own may delay
	// its first round past Period while a neighbour model it asked for is
	// on the way (see the package comment on late joiners).
	JoinWait int
	// MaxNeighbors bounds the neighbour set (FedLay has at most 2L).
	MaxNeighbors int
	// MaxRounds ends training after so many rounds (0: no bound), as a
	// method core's MaxRounds does (a task's max_rounds): no round starts
	// after it, the last published model stays offered to the
	// neighbours (peers still training mix it), and offers of theirs are
	// declined (MsgHave): a done peer fetches no more models.
	MaxRounds int
	// LossyWire says the transport carries models compressed (a task's
	// codec, engine/modelcodec): the copy that arrives differs from the
	// sender's model in its last bits, so its fingerprint is not checked
	// against the header's, which names the sender's model (offers and
	// duplicate checks still use it). The transport checked the
	// payload's integrity (rtc's SHA-256 of the bytes sent).
	LossyWire bool
}

// DefaultConfig returns the timing defaults; the caller sets ID, Task,
// Arch, NumParams, DataSize and DataConf (and Period and Tier from
// AssignTiers in heterogeneous runs). A tick is meant to be ~100 ms of
// real or virtual time.
func DefaultConfig() Config {
	return Config{
		Period:          30,         // T_u: 3 s per round at 100 ms ticks (medium tier)
		Tier:            TierMedium, // the 60% majority tier
		DataSize:        0,          // |D_u|: set from the local data set
		DataConf:        1,          // c_d: 1 = balanced labels; set from the histogram
		OfferTimeout:    10,         // 1 s for a MsgHave/MsgNeed, well under a period
		TransferTimeout: 50,         // 5 s for a model (~1 MB at 10-40 MB/s plus stalls)
		JoinWait:        30,         // a joiner waits at most one more period for models
		MaxNeighbors:    64,         // FedLay uses 2L <= ~12; generous bound
	}
}

// Validate checks every field.
func (c Config) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
	}
	switch {
	case c.ID == ident.Peer{}:
		return bad("ID not set")
	case c.Task == ident.Task{}:
		return bad("Task not set")
	case len(c.Arch) == 0 || len(c.Arch) > MaxArchLen:
		return bad("Arch %q: want 1 to %d bytes", c.Arch, MaxArchLen)
	case c.NumParams < 1 || c.NumParams > MaxParams:
		return bad("NumParams %d: want 1 to %d", c.NumParams, MaxParams)
	case c.Period < 1 || c.Period > MaxPeriod:
		return bad("Period %d: want 1 to %d", c.Period, MaxPeriod)
	case !c.Tier.valid():
		return bad("Tier %d", c.Tier)
	case c.DataSize < 0 || c.DataSize > MaxDataSize:
		return bad("DataSize %d", c.DataSize)
	case !(c.DataConf > 0 && c.DataConf <= 1):
		return bad("DataConf %v: want (0, 1]", c.DataConf)
	case c.OfferTimeout < 1:
		return bad("OfferTimeout %d", c.OfferTimeout)
	case c.TransferTimeout < 1:
		return bad("TransferTimeout %d", c.TransferTimeout)
	case c.JoinWait < 0:
		return bad("JoinWait %d", c.JoinWait)
	case c.MaxNeighbors < 1:
		return bad("MaxNeighbors %d", c.MaxNeighbors)
	case c.MaxRounds < 0:
		return bad("MaxRounds %d", c.MaxRounds)
	}
	return nil
}
