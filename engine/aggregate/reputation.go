package aggregate

import (
	"fmt"
	"maps"
	"math"

	"github.com/peerlearn/peerlearn/types/ident"
)

// ReputationConfig tunes Reputation.
type ReputationConfig struct {
	// Tolerance in [0, 1) is the outlier severity an honest neighbour
	// shows now and then (with the default clipping an honest neighbour
	// twice as far as tau has severity 0.5; trimmed at a few
	// more coordinates than average); severities up to it cost nothing,
	// above it the cost grows linearly to Penalty at severity 1.
	Tolerance float64
	// Penalty is the score lost in a round at severity 1.
	Penalty float64
	// RefusalPenalty is the score lost in a round the neighbour's model
	// is refused (non-finite, wrong architecture or length, bad claims).
	RefusalPenalty float64
	// Recovery is the score regained in a round the neighbour's model is
	// used within Tolerance; small, so that trust is rebuilt slowly.
	Recovery float64
	// DropBelow: ShouldDrop reports a neighbour whose score is below it.
	DropBelow float64
	// MinWitnesses: outlier severities cost score only in a round with
	// at least this many neighbours' models. With fewer, the reference
	// distance is that of one or two models, too few to call any one an
	// outlier: among 3 honest neighbours trained on different data one is
	// often 2-4 times as far as the closest, and 4 honest peers on
	// loopback cut each other off that way (the model is still clipped).
	// Refusals cost score however few the models.
	MinWitnesses int
	// Drift follows each neighbour's direction measurements (Report's
	// Pulls) over rounds and charges the one that pulls back a little
	// every round (DriftConfig). Counted only in rounds of at least
	// MinWitnesses neighbours, like the severities. Off by default (the
	// lab's RULE+drift): measured, it takes the adaptive attack's gap
	// down but cuts honest links on non-IID data (docs/RESULTS.md).
	Drift DriftConfig
}

// DefaultReputationConfig: a neighbour sending a far-out model every
// round is reported after 3 rounds (1 -> 0.7 -> 0.4 -> 0.1 < 0.2) and
// needs 45 clean rounds to climb back to 1; an honest neighbour clipped
// to at most half its distance (severity <= 0.5) never loses score.
func DefaultReputationConfig() ReputationConfig {
	return ReputationConfig{
		Tolerance:      0.5,  // honest neighbours are rarely more than 2x tau out
		Penalty:        0.3,  // three far-out rounds from full trust to reported
		RefusalPenalty: 0.3,  // a refused model costs as much as a far-out one
		Recovery:       0.02, // 45 clean rounds from 0.1 back to 1
		DropBelow:      0.2,  // report below a fifth of full trust
		MinWitnesses:   4,    // the closest third of 4 or more: at least 2 models
	}
}

// Validate requires every fraction finite and in [0, 1], Tolerance < 1,
// and MinWitnesses >= 0.
func (c ReputationConfig) Validate() error {
	in01 := func(x float64) bool { return x >= 0 && x <= 1 }
	if !in01(c.Tolerance) || c.Tolerance == 1 || !in01(c.Penalty) || !in01(c.RefusalPenalty) ||
		!in01(c.Recovery) || !in01(c.DropBelow) || c.MinWitnesses < 0 {
		return fmt.Errorf("%w: reputation %+v", ErrConfig, c)
	}
	return c.Drift.Validate()
}

// Reputation is one peer's score of each neighbour, in [0, 1], 1 for a
// neighbour never seen. It falls when the neighbour's model is refused
// or cut back far by a robust rule and recovers slowly while it is used
// cleanly, so that a repeat offender crosses DropBelow and can be
// reported for unlinking (ShouldDrop); acting on it is the runtime's
// job. Pure: it changes only in Observe and Forget.
type Reputation struct {
	cfg    ReputationConfig
	scores map[ident.Peer]float64
	drift  map[ident.Peer]float64 // the drift test's sums
}

// NewReputation validates cfg and returns an empty record.
func NewReputation(cfg ReputationConfig) (*Reputation, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Reputation{cfg: cfg, scores: map[ident.Peer]float64{}, drift: map[ident.Peer]float64{}}, nil
}

// Observe updates the scores from one aggregation: others is what was
// passed to Aggregate, rep what it returned. A neighbour refused loses
// RefusalPenalty; one listed as an Outlier above Tolerance loses
// Penalty scaled by how far above, in a round of at least MinWitnesses
// neighbours; every other one regains Recovery.
// Each neighbour counts once per call (its first entry in others).
// It returns the indices the drift test charged (DriftConfig; nil when
// off), for the caller to count and log; with Drift.Suspend they are not
// charged but suspended from the next round (Suspended).
func (r *Reputation) Observe(others []Contribution, rep Report) (drifting []int) {
	cost := make(map[int]float64, len(rep.Refused)+len(rep.Outliers))
	for _, f := range rep.Refused {
		cost[f.Index] = max(cost[f.Index], r.cfg.RefusalPenalty)
	}
	witnesses := make(map[ident.Peer]bool, len(others))
	for _, c := range others {
		witnesses[c.From] = true
	}
	for _, o := range rep.Outliers {
		if o.Severity > r.cfg.Tolerance && len(witnesses) >= r.cfg.MinWitnesses {
			c := r.cfg.Penalty * min(1, (o.Severity-r.cfg.Tolerance)/(1-r.cfg.Tolerance))
			cost[o.Index] = max(cost[o.Index], c)
		}
	}
	sums, drifting := r.drifting(rep, len(witnesses))
	maps.Copy(r.drift, sums)
	for _, j := range drifting {
		if !r.cfg.Drift.Suspend {
			cost[j] = max(cost[j], r.cfg.Penalty)
		}
	}
	seen := make(map[ident.Peer]bool, len(others))
	for j, c := range others {
		if seen[c.From] {
			continue
		}
		seen[c.From] = true
		s := r.Score(c.From)
		if k, bad := cost[j]; bad && k > 0 {
			s -= k
		} else {
			s += r.cfg.Recovery
		}
		r.scores[c.From] = math.Min(1, math.Max(0, s))
	}
	return drifting
}

// Score returns id's score in [0, 1]; 1 when never observed.
func (r *Reputation) Score(id ident.Peer) float64 {
	if s, ok := r.scores[id]; ok {
		return s
	}
	return 1
}

// ShouldDrop reports whether id has fallen below DropBelow: a repeat
// offender the runtime should unlink from.
func (r *Reputation) ShouldDrop(id ident.Peer) bool { return r.Score(id) < r.cfg.DropBelow }

// Forget drops id's record (for example when it leaves the
// neighbourhood for good).
func (r *Reputation) Forget(id ident.Peer) {
	delete(r.scores, id)
	delete(r.drift, id)
}

// Suspended reports whether the drift test, in its Suspend form, leaves
// id's model out of the next round's average: its sum is over Limit.
func (r *Reputation) Suspended(id ident.Peer) bool {
	return r.cfg.Drift.Suspend && r.cfg.Drift.Limit > 0 && r.drift[id] > r.cfg.Drift.Limit
}

// DriftCharged lists the indices (into others) of the neighbours the
// drift test would charge in a round that reported rep among witnesses
// neighbours' models: what an attacker that knows the test checks
// before it sends (the lab's adaptive attacks). It changes nothing.
func (r *Reputation) DriftCharged(rep Report, witnesses int) []int {
	_, charged := r.drifting(rep, witnesses)
	return charged
}

// drifting returns the drift test's sums after a round that reported rep
// among witnesses distinct neighbours' models, and the indices of the
// neighbours it charges; nil, nil when the test is off or the round has
// too few witnesses.
func (r *Reputation) drifting(rep Report, witnesses int) (sums map[ident.Peer]float64, charged []int) {
	if r.cfg.Drift.Limit == 0 || witnesses < r.cfg.MinWitnesses {
		return nil, nil
	}
	sums = r.cfg.Drift.step(r.drift, rep.Pulls, r.cfg.MinWitnesses)
	for _, p := range rep.Pulls {
		if s, ok := sums[p.From]; ok && s > r.cfg.Drift.Limit {
			charged = append(charged, p.Index)
		}
	}
	return sums, charged
}
