package learn

import "math"

// Metrics counts what one peer did.
type Metrics struct {
	// Rounds is the number of rounds whose model was published.
	Rounds int
	// RoundsFailed counts rounds abandoned (training failed, or aborted).
	RoundsFailed int
	// Adopted counts rounds that started from the neighbours' models
	// without the peer's own (late joiner catch-up).
	Adopted int
	// SamplesTrained is the number of samples of local training steps.
	SamplesTrained int64
	// TrainLoss is the mean training loss of the last published round.
	TrainLoss float64

	// ModelBytesSent/Received count model payloads (parameters and
	// Hessians, 4 bytes a value); ControlBytesSent/Received count the
	// encoded control messages (MEP offers, answers and model headers).
	ModelBytesSent, ModelBytesReceived     int64
	ControlBytesSent, ControlBytesReceived int64
	// ModelsSent and ModelsReceived count models (asynchronous mode: as
	// the MEP counts them; synchronous: one per neighbour and round).
	ModelsSent, ModelsReceived uint64
	// OffersSkipped counts MEP offers not made because the neighbour
	// already held the model (fingerprint de-duplication).
	OffersSkipped uint64
	// ModelsRejected counts models the MEP refused on receipt (other
	// task, architecture or length, or a fingerprint mismatch).
	ModelsRejected uint64
	// Dropped counts received messages the MEP dropped for any reason.
	Dropped int
	// Refused counts neighbour models the aggregator refused, by reason.
	Refused Refusals
	// Bounded counts neighbour models whose self-reported claims a
	// robust aggregator cut (per round and neighbour).
	Bounded int
	// Outliers counts neighbour models a robust aggregator clipped,
	// trimmed or found behind beyond an honest neighbour's usual spread
	// (severity above Config.Reputation.Tolerance), per round and
	// neighbour.
	Outliers int
	// Drifting counts neighbour models the reputation's drift test
	// charged (aggregate.DriftConfig: one that points back against our
	// step round after round, each round inside the thresholds), or, in
	// its Suspend form, found over its limit, per round and neighbour.
	Drifting int
	// Suspended counts neighbour models left out of a round's average
	// because the drift test, in its Suspend form, had them over its
	// limit when the round began, per round and neighbour.
	Suspended int

	works uint64
}

// Refusals counts refused contributions by reason.
type Refusals struct {
	NonFinite, Arch, Length, Screened, Other int
}

// Total sums the reasons.
func (r Refusals) Total() int { return r.NonFinite + r.Arch + r.Length + r.Screened + r.Other }

// Summary is the mean, minimum and maximum of a quantity across peers.
type Summary struct {
	Mean, Min, Max float64
	N              int
}

// Summarize summarises xs; the zero Summary for none.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := Summary{Min: math.Inf(1), Max: math.Inf(-1), N: len(xs)}
	var sum float64
	for _, x := range xs {
		sum += x
		s.Min = min(s.Min, x)
		s.Max = max(s.Max, x)
	}
	s.Mean = sum / float64(len(xs))
	return s
}
