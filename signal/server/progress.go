package server

import (
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The swarm as a whole (issue #24 item 7): peers that opted in send
// signed summaries (signal.Summary) on their session; the server keeps
// the latest per peer and a short history per task, for GET /tasks, GET
// /tasks/{id}/progress and /metrics. Nothing in the overlay or in
// training reads them: a server that stops only stops the counting.
//
// Every field is a claim. What one peer can move is bounded: a summary
// counts only from the registered session of the key that signed it, at
// most one per Config.SummaryInterval, with a higher Seq than the last; the
// samples it adds to the task's total are at most MaxSamplesPerSecond
// for the time since its last counted summary (or its registration), so
// a liar adds no more than a very fast honest peer; and the task's
// accuracy is the median of its reporting peers' (fewer than half of
// them cannot move it outside the honest ones' range).

const (
	// MinSummaryInterval is the default of Config.SummaryInterval, the
	// least time between two counted summaries of one peer (peers send
	// every 30 s by default, netpeer.DefaultSummaryEvery).
	MinSummaryInterval = 10 * time.Second
	// SummaryFresh is how long a peer's last summary counts in the
	// task's accuracy and reporting peers.
	SummaryFresh = 90 * time.Second
	// MaxSamplesPerSecond bounds the samples one peer's summaries add to
	// the task's total per second of its session: well above a GPU's
	// rate on the small models tasks declare.
	MaxSamplesPerSecond = 200_000
	// ProgressEvery is the spacing of a task's history points, and
	// ProgressPoints how many are kept (2 h).
	ProgressEvery  = 30 * time.Second
	ProgressPoints = 240
)

// taskProgress is one task's summaries (guarded by Server.mu).
type taskProgress struct {
	latest  map[ident.Peer]*peerProgress // registered peers' latest; dropped with the session
	samples uint64                       // counted samples, all peers, since the server started
	history []ProgressPoint              // oldest first, at most ProgressPoints
}

// peerProgress is one peer's latest counted summary.
type peerProgress struct {
	at       time.Time
	seq      uint64
	round    uint64
	accuracy float64 // -1: not evaluated yet
	samples  uint64
}

// ProgressPoint is the task at one time, from its peers' summaries.
type ProgressPoint struct {
	Unix      int64    `json:"t"`
	Peers     int      `json:"peers"`     // registered
	Reporting int      `json:"reporting"` // with a fresh summary
	Accuracy  *float64 `json:"accuracy"`  // median of the fresh ones' (nil: none evaluated)
	Samples   uint64   `json:"samples"`   // counted samples so far
	Round     uint64   `json:"round"`     // median round of the reporting peers
}

// summary counts a registered peer's summary, or refuses it (counted, a
// strike, and an error back, like every refused message).
func (sess *session) summary(s *signal.Summary) {
	srv := sess.srv
	if err := signal.VerifySummary(sess.pub, sess.task.id, s); err != nil {
		srv.counters.summaries[summaryRefused].Add(1)
		sess.refuse(signal.CodeBadSignature, err.Error(), true)
		return
	}
	now := srv.now()
	srv.mu.Lock()
	ok, why := false, "an observer trains nothing: it has no progress to report"
	if !sess.observer {
		ok, why = sess.task.progress.count(sess, s, now, srv.cfg.SummaryInterval)
	}
	if ok {
		peers, _ := sess.task.counts()
		sess.task.progress.sample(now, peers)
	}
	srv.mu.Unlock()
	if !ok {
		srv.counters.summaries[summaryRefused].Add(1)
		sess.refuse(signal.CodeRateLimited, why, true)
		return
	}
	srv.counters.summaries[summaryCounted].Add(1)
}

// Summary counters.
const (
	summaryCounted = iota
	summaryRefused
)

// count takes s into the task's state; false and why when refused.
// Called with Server.mu held.
func (p *taskProgress) count(sess *session, s *signal.Summary, now time.Time, interval time.Duration) (bool, string) {
	last := p.latest[sess.id]
	since := sess.registeredAt
	var lastSamples uint64
	if last != nil {
		if s.Seq <= last.seq {
			return false, "summary seq not above the last"
		}
		if now.Sub(last.at) < interval {
			return false, "summaries come at most every " + interval.String()
		}
		since, lastSamples = last.at, last.samples
	}
	add := uint64(0)
	if s.Samples > lastSamples {
		add = min(s.Samples-lastSamples, uint64(max(now.Sub(since).Seconds(), 0)*MaxSamplesPerSecond))
	}
	p.samples += add
	if p.latest == nil {
		p.latest = map[ident.Peer]*peerProgress{}
	}
	p.latest[sess.id] = &peerProgress{at: now, seq: s.Seq, round: s.Round, accuracy: s.Accuracy, samples: max(s.Samples, lastSamples)}
	return true, ""
}

// sample appends a history point when the last is ProgressEvery old.
// Called with Server.mu held.
func (p *taskProgress) sample(now time.Time, peers int) {
	if n := len(p.history); n > 0 && now.Unix()-p.history[n-1].Unix < int64(ProgressEvery/time.Second) {
		return
	}
	if len(p.history) == ProgressPoints {
		p.history = slices.Delete(p.history, 0, 1)
	}
	p.history = append(p.history, p.now(now, peers))
}

// now is the task's point at time now. Called with Server.mu held.
func (p *taskProgress) now(now time.Time, peers int) ProgressPoint {
	pt := ProgressPoint{Unix: now.Unix(), Peers: peers, Samples: p.samples}
	var accs []float64
	var rounds []uint64
	for _, l := range p.latest {
		if now.Sub(l.at) > SummaryFresh {
			continue
		}
		pt.Reporting++
		rounds = append(rounds, l.round)
		if l.accuracy >= 0 {
			accs = append(accs, l.accuracy)
		}
	}
	if len(accs) > 0 {
		slices.Sort(accs)
		m := accs[len(accs)/2]
		if len(accs)%2 == 0 {
			m = (accs[len(accs)/2-1] + m) / 2
		}
		pt.Accuracy = &m
	}
	if len(rounds) > 0 {
		slices.Sort(rounds)
		pt.Round = rounds[len(rounds)/2]
	}
	return pt
}

// forget drops a peer's latest summary when its session ends (its
// counted samples stay in the total). Called with Server.mu held.
func (p *taskProgress) forget(peer ident.Peer) { delete(p.latest, peer) }
