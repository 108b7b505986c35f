package netpeer

import "github.com/peerlearn/peerlearn/engine/health"

// HealthStatus is what /status says of the neighbourhood check
// (engine/health, docs/SECURITY.md "Neighbourhood health"): State is
// "healthy", "suspect" (most neighbours disagreed with our data, not yet
// long enough) or "captured" (the peer aggregates only with the
// neighbours that agree); Disagree of Neighbours is the last round's
// count; Alarming counts the rounds most neighbours disagreed, Captures
// the entries into "captured", Replacements the new placements the check
// asked for (one at capture, then at most every Cooldown alarming
// rounds; a native peer with Config.Move takes them, within its bounds,
// and counts them in Status.Moves: move.go, docs/SECURITY.md).
type HealthStatus struct {
	State        string `json:"state"`
	Neighbours   int    `json:"neighbours"`
	Disagree     int    `json:"disagree"`
	Rounds       int    `json:"rounds"`
	Alarming     int    `json:"alarming"`
	Captures     int    `json:"captures"`
	Replacements int    `json:"replacements_asked"`
}

func healthStatusOf(s health.Status) *HealthStatus {
	return &HealthStatus{State: s.State.String(), Neighbours: s.Neighbours, Disagree: s.Disagree,
		Rounds: s.Rounds, Alarming: s.Alarming, Captures: s.Captures, Replacements: s.Replacements}
}

// SuspensionStatus is what the drift test's Suspend form did (learn's
// Metrics, per round and neighbour): Found counts neighbour models it
// found over its limit, LeftOut those it left out of a round's average
// for it (their weight carried this peer's own model).
type SuspensionStatus struct {
	Found   int `json:"found"`
	LeftOut int `json:"left_out"`
}
