package node

import (
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The learner's Guard: what the robust aggregation did to each
// neighbour's models, counted per neighbour and reason for the peer's
// status and logged at most once per offenceLogEvery per neighbour; and
// the neighbours the reputation gave up on (Trust.ShouldDrop), whose
// models the shell stops exchanging for a while and whose connection its
// transport closes and refuses for as long (rtc.Manager.Deny; the deny
// list is the rtc policy's bounded ban memory). Pure: time comes in as
// now, the log through logf; its golden scripts are testdata/guard-*.txt.

// Trust is the reputation the guard reads and resets: learn.Peer's
// (engine/aggregate.Reputation, which the peer's aggregations update).
type Trust interface {
	Reputation(id ident.Peer) float64
	ShouldDrop(id ident.Peer) bool
	Forgive(id ident.Peer)
}

// offenceLogEvery bounds the log to one line per offending neighbour in
// this time (a liar sends a model every round).
const offenceLogEvery = 10 * time.Second

// Refusal reasons, as Status and the page name them.
const (
	reasonNonFinite = "non_finite" // NaN or Inf values
	reasonArch      = "arch"       // another architecture
	reasonLength    = "length"     // another parameter count
	reasonScreened  = "screened"   // failed the loss screen on our data
	reasonOther     = "other"      // any other reason the aggregator gave
	reasonDropped   = "dropped"    // from a neighbour we stopped exchanging models with
)

// Offender is one neighbour whose models were cut back or refused, or
// whose reputation is below full trust.
type Offender struct {
	ID string `json:"id"` // hex peer ID
	// Clipped counts its models cut back far beyond an honest
	// neighbour's usual spread; Refused its models refused, by reason.
	Clipped int            `json:"clipped"`
	Refused map[string]int `json:"refused,omitempty"`
	// Reputation is our score of it in [0, 1].
	Reputation float64 `json:"reputation"`
	// DroppedS > 0: we stopped exchanging models with it; it is let back
	// after so many more seconds.
	DroppedS float64 `json:"dropped_s,omitempty"`
}

// offence is one neighbour's record.
type offence struct {
	clipped  int
	refused  map[string]int
	logged   time.Time // last log line about it
	unlogged int       // offences since that line
	until    time.Time // dropped until (zero: not dropped)
}

// Guard keeps the records. Only the learner's loop touches it.
type Guard struct {
	trust     Trust
	tolerance float64 // the reputation's Tolerance: an honest neighbour's usual spread
	logf      func(string, ...any)
	banFor    time.Duration
	records   map[ident.Peer]*offence
	refused   map[string]int // all refusals, by reason
	drops     int            // neighbours dropped so far
}

// NewGuard reads trust configured by rc, with rounds of period: a
// dropped neighbour is let back after the time its reputation would need
// to climb from DropBelow back to full trust at Recovery per round (the
// reputation's own idea of a probation); at least a minute.
func NewGuard(trust Trust, rc aggregate.ReputationConfig, period time.Duration, logf func(string, ...any)) *Guard {
	rounds := 60.0
	if rc.Recovery > 0 {
		rounds = math.Ceil((1 - rc.DropBelow) / rc.Recovery)
	}
	ban := max(time.Minute, time.Duration(rounds)*period)
	return &Guard{trust: trust, tolerance: rc.Tolerance, logf: logf, banFor: ban, records: map[ident.Peer]*offence{}, refused: map[string]int{}}
}

// BanFor is how long a dropped neighbour stays dropped.
func (g *Guard) BanFor() time.Duration { return g.banFor }

// Drops counts the neighbours dropped so far.
func (g *Guard) Drops() int { return g.drops }

// Refused counts every refusal so far by reason (a copy).
func (g *Guard) Refused() map[string]int { return maps.Clone(g.refused) }

func (g *Guard) record(id ident.Peer) *offence {
	o := g.records[id]
	if o == nil {
		o = &offence{refused: map[string]int{}}
		g.records[id] = o
	}
	return o
}

// Observe counts a finished aggregation's refusals and far-out clips per
// neighbour, logs the offenders (rate-limited) and returns the
// neighbours the reputation now says to drop.
func (g *Guard) Observe(rep aggregate.Report, now time.Time) (drop []ident.Peer) {
	seen := map[ident.Peer]bool{}
	for _, r := range rep.Refused {
		reason := refusalReason(r.Err)
		g.refused[reason]++
		o := g.record(r.From)
		o.refused[reason]++
		g.offended(r.From, o, fmt.Sprintf("refused its model (%s: %v)", reason, r.Err), now)
		seen[r.From] = true
	}
	for _, c := range rep.Outliers {
		if c.Severity <= g.tolerance {
			continue // an honest neighbour's usual spread
		}
		o := g.record(c.From)
		o.clipped++
		g.offended(c.From, o, outlierLine(c), now)
		seen[c.From] = true
	}
	for id := range seen {
		if o := g.records[id]; o.until.IsZero() && g.trust.ShouldDrop(id) {
			drop = append(drop, id)
		}
	}
	slices.SortFunc(drop, ident.ComparePeers)
	return drop
}

// offended logs o's latest offence, or counts it for the next line.
func (g *Guard) offended(id ident.Peer, o *offence, what string, now time.Time) {
	o.unlogged++
	if now.Sub(o.logged) < offenceLogEvery {
		return
	}
	g.logf("learn: %v: %s; %d offences since the last line (%d clipped, %d refused in all), reputation %.2f",
		id, what, o.unlogged, o.clipped, sum(o.refused), g.trust.Reputation(id))
	o.logged, o.unlogged = now, 0
}

// Drop stops exchanging models with id until banFor from now.
func (g *Guard) Drop(id ident.Peer, now time.Time) {
	o := g.record(id)
	o.until = now.Add(g.banFor)
	g.drops++
	g.logf("learn: %v: stopped exchanging models with it and closed its link for %v (reputation %.2f: a repeat offender)",
		id, g.banFor, g.trust.Reputation(id))
}

// Dropped reports whether id is dropped now.
func (g *Guard) Dropped(id ident.Peer, now time.Time) bool {
	o := g.records[id]
	return o != nil && now.Before(o.until)
}

// Expire lets back the neighbours whose drop has run out, at full trust
// again (learn.Peer.Forgive); it returns them.
func (g *Guard) Expire(now time.Time) (back []ident.Peer) {
	for _, id := range slices.SortedFunc(maps.Keys(g.records), ident.ComparePeers) {
		if o := g.records[id]; !o.until.IsZero() && !now.Before(o.until) {
			o.until = time.Time{}
			g.trust.Forgive(id)
			g.logf("learn: %v: exchanging models with it again", id)
			back = append(back, id)
		}
	}
	return back
}

// RefusedDropped counts a message or model refused because its sender is
// dropped.
func (g *Guard) RefusedDropped(id ident.Peer) {
	g.refused[reasonDropped]++
	g.record(id).refused[reasonDropped]++
}

// Offenders lists the neighbours with an offence or a reputation below
// full trust, by ID.
func (g *Guard) Offenders(now time.Time) []Offender {
	var out []Offender
	for id, o := range g.records {
		f := Offender{ID: hex.EncodeToString(id[:]), Clipped: o.clipped, Reputation: g.trust.Reputation(id)}
		if len(o.refused) > 0 {
			f.Refused = maps.Clone(o.refused)
		}
		if now.Before(o.until) {
			f.DroppedS = o.until.Sub(now).Seconds()
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b Offender) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// refusalReason names the reason of an aggregator's refusal.
func refusalReason(err error) string {
	switch {
	case errors.Is(err, aggregate.ErrNonFinite):
		return reasonNonFinite
	case errors.Is(err, aggregate.ErrArch):
		return reasonArch
	case errors.Is(err, aggregate.ErrLength):
		return reasonLength
	case errors.Is(err, learn.ErrScreened):
		return reasonScreened
	}
	return reasonOther
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// outlierLine says what the robust rule did with an outlier's model; the
// behind check only reports, so its models were used as they were.
func outlierLine(o aggregate.Outlier) string {
	switch o.Action {
	case aggregate.OutlierLeftOut:
		return fmt.Sprintf("left its model out of the average (severity %.2f)", o.Severity)
	case aggregate.OutlierFlagged:
		return fmt.Sprintf("flagged its model as behind the neighbourhood's along our step (severity %.2f; used, at most cut back)", o.Severity)
	}
	return fmt.Sprintf("cut its model back (%.0f%% of its difference to ours)", 100*o.Severity)
}
