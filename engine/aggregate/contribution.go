package aggregate

import (
	"fmt"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Contribution is one model offered to an aggregation: the peer's own
// (self) or a neighbour's. Aggregators only read it.
type Contribution struct {
	// From is the contributing peer. Two contributions from one peer are
	// refused as duplicates.
	From ident.Peer
	// Arch tags the architecture and parameter shapes (for example a
	// checksum of layer kinds and sizes). Only equal tags are averaged.
	Arch string
	// Params holds all the model's parameters, flattened.
	Params []float32
	// DataSize is |D_j|, the number of local training samples (DecAvg,
	// FedAvg and DecHW's fallback weights).
	DataSize int
	// Period is T_j, the contributor's exchange period in ticks; FedLay's
	// communication confidence is c_c = 1/T_j.
	Period int
	// DataConf is the contributor's data confidence c_d in (0, 1], computed
	// by the contributor from its label histogram (DataConfidence) and
	// advertised as one number, so the histogram itself stays private.
	DataConf float64
	// Hessian is the contributor's accumulated, normalised Hessian
	// diagonal (DecHW Eq. 5), as long as Params; nil when not exchanged.
	Hessian []float32
	// Origin, read only on self, is the model our own last local training
	// started from (the previous aggregate), as long as Params; nil when
	// unknown (before the first round). Params - Origin is our own local
	// step: an honest measure of how far one round moves a model and in
	// which direction our data pulls it, which no neighbour can bend
	// (ClipConfig.Direction). Never sent: a neighbour's Origin is
	// ignored.
	Origin []float32
	// Suspended, read only on others by Robust, leaves the model out of
	// the round's average while its direction is still measured and
	// reported in Pulls: the caller's reputation suspends a neighbour
	// whose pulls back against our step have added up (DriftConfig.
	// Suspend). Never sent. The plain rules ignore it: the drift test
	// needs Robust's measurements, so no neighbour is suspended under
	// them.
	Suspended bool
}

// Aggregator combines self with others into out, which must be as long as
// self.Params. out may be self.Params itself (in-place update) but must
// not share memory with any other contribution. Refused contributions are
// listed in the Report and ignored; an error means self or out is unusable
// (or no weight is left) and out is untouched.
type Aggregator interface {
	Aggregate(self Contribution, others []Contribution, out []float32) (Report, error)
}

// Report says what one aggregation used.
type Report struct {
	// Used counts the contributions that entered the average, self
	// included when the method averages it (FedAvg does not).
	Used int
	// Refused lists the refused others, in input order; nil if none.
	Refused []Refusal
	// Hessian reports that DecHW weighted parameters by Hessian this call.
	Hessian bool
	// Fallback counts the parameters DecHW aggregated with data-size
	// weights because every Hessian weight was zero there.
	Fallback int
	// Bounded counts the accepted neighbours whose self-reported claims
	// (DataSize, Period, DataConf, Hessian) a Robust rule cut down.
	Bounded int
	// Outliers lists the accepted neighbours a robust rule clipped or
	// trimmed beyond what an honest neighbour normally is, in input
	// order; nil if none. Reputation feeds on it.
	Outliers []Outlier
	// Pulls lists, in input order, the clipping rule's direction
	// measurements of the accepted neighbours it checked (Pull); nil when
	// no direction check ran. Reputation follows them over rounds.
	Pulls []Pull
}

// Outlier names a neighbour whose model a robust rule cut back, and by
// how much, or (ClipConfig.Behind) used whole but found behind the
// neighbourhood along our own step.
type Outlier struct {
	// Index is the contribution's position in others.
	Index int
	// From is its peer.
	From ident.Peer
	// Severity in [0, 1] says how far out the model was (0: the check
	// that reported it does not say; peer/learn's loss screen with
	// LeaveOut, which leaves a model out uncharged): for clipping
	// 1 - tau/distance (the share of its difference that was cut off;
	// the same for a model left out of the average as too far out);
	// for the coordinate-wise rules the share of coordinates it was
	// trimmed at beyond the share every contributor is trimmed at; for
	// the direction check how far its cosine fell below the threshold,
	// and for the behind check its reach behind over ClipConfig.Behind.
	// The clipped rules report one Outlier per neighbour, the largest.
	Severity float64
	// Action is what the rule did with the model: the severity can come
	// from a check that changed nothing (the behind check only reports),
	// so a log line must not say "cut back" for a model used whole.
	Action OutlierAction
}

// OutlierAction says what a robust rule did with an outlier's model.
type OutlierAction int

const (
	// OutlierCut: used, cut back towards ours (clipping) or trimmed at
	// some coordinates (the coordinate-wise rules).
	OutlierCut OutlierAction = iota
	// OutlierLeftOut: left out of the round's average (beyond the
	// rejection radius, or refused by the direction check).
	OutlierLeftOut
	// OutlierFlagged: used as it was (whole, or cut back less than its
	// Severity says), only reported for reputation (the behind check).
	OutlierFlagged
)

// String names the action for logs.
func (a OutlierAction) String() string {
	switch a {
	case OutlierCut:
		return "cut back"
	case OutlierLeftOut:
		return "left out"
	case OutlierFlagged:
		return "flagged"
	}
	return fmt.Sprintf("OutlierAction(%d)", int(a))
}

// Refusal names a refused contribution and why.
type Refusal struct {
	// Index is the contribution's position in others.
	Index int
	// From is its peer.
	From ident.Peer
	// Err wraps one of the reason sentinels (ErrNonFinite, ErrArch, ...).
	Err error
}
