package plexus

import (
	"slices"

	"github.com/peerlearn/peerlearn/types/ident"
)

// resume is a member of S^k+1 waiting for train(k+1) after learning that
// round k was aggregated. Round k's aggregator may have died while
// sending: its short announcements arrived, its train requests (the
// model) did not, so nobody holds round k's model and nobody would start
// round k+1. The members of S^k+1 that know wait T_round for their train
// request (it left with the announcement: T_round covers the transfers
// of s models), then give the ranks of S^k+1 one T_round each, in
// Ranking's order, to restart the round (resumeTimeout); a rank whose
// turn comes is told round k is over (MsgOver), so it waits T_agg only
// and restarts within its turn (T_round > T_agg).
type resume struct {
	round    uint64       // k+1
	turns    []ident.Peer // the ranks whose turn came, in order; the last one's is running
	deadline int64
}

// await starts waiting ticks for train(k+1) after learning that round k
// is over, if this peer is in S^k+1 by its view and k+1 has not begun
// here: T_round after round k's aggregator said so, T_agg after a peer
// that did not aggregate it did (MsgOver: the T_round has passed
// there). One wait at a time: a newer round replaces it, an older one
// is ignored.
func (p *Peer) await(k uint64, ticks int) {
	n := k + 1
	switch {
	case p.cfg.Rounds > 0 && k >= p.cfg.Rounds, n <= p.newest, p.done[n] > 0, p.colls[n] != nil,
		p.resume != nil && p.resume.round >= n,
		!slices.Contains(p.view.Sample(n, p.cfg.SampleSize), p.cfg.ID):
		return
	}
	p.resume = &resume{round: n, deadline: p.now + int64(ticks)}
}

// settled ends a wait for round k or an older one: round k began here
// (a train request, a model to aggregate) or is over.
func (p *Peer) settled(k uint64) {
	if p.resume != nil && p.resume.round <= k {
		p.resume = nil
	}
}

// resumeTimeout runs when a wait passed with no sign of its round: the
// rank whose turn it was missed it (ranked last, View.Missed), and the
// turn goes to the best-ranked member of S^k+1 that has not had one,
// which is told that round k is over (MsgOver). If that is this
// peer, it restarts the round: it pushes train(k+1, θ) to S^k+1, θ the
// newest global model it holds (round k's is lost; at worst an older
// one), and trains it itself. Each rank gets one turn, so a wait ends
// within (|S^k+1| + 1) T_round, and costs one short message per turn.
func (p *Peer) resumeTimeout(r *resume) {
	p.stats.ResumeTimeouts++
	if n := len(r.turns); n > 0 && r.turns[n-1] != p.cfg.ID {
		p.view.Missed(r.turns[n-1])
	}
	ranks := p.view.Ranking(r.round, p.cfg.SampleSize)
	i := slices.IndexFunc(ranks, func(id ident.Peer) bool { return !slices.Contains(r.turns, id) })
	if i < 0 {
		p.resume = nil // every rank had its turn (the view changed under the wait)
		return
	}
	next := ranks[i]
	r.turns = append(r.turns, next)
	r.deadline = p.now + int64(p.cfg.RoundTimeout)
	if next != p.cfg.ID {
		p.send(p.over(next, r.round-1))
		return
	}
	if p.globalP == nil { // without a model it lets the next rank restart
		return
	}
	p.resume = nil
	p.stats.Resumes++
	// Round k is over before round k+1 begins: a member that missed the
	// announcement then reads the train request as a restart, not as
	// round k aggregated by this peer (aggregatedBy would rank the
	// members of S^k ahead of it last).
	sample := p.view.Sample(r.round, p.cfg.SampleSize)
	for _, id := range sample {
		if id != p.cfg.ID {
			p.send(p.over(id, r.round-1))
		}
	}
	for _, id := range sample {
		if id != p.cfg.ID {
			p.send(Message{Type: MsgTrain, To: id, Round: r.round, Model: p.header(MsgTrain), Params: p.globalP})
		}
	}
	p.acceptTrain(r.round, p.globalP)
}

// lateModel handles a trained model m for a round known to be complete:
// dropped, and if its sender escalated (it waited T_round and heard
// nothing of the round's end) it is told the round is over, so that it
// stops escalating and, if it is in the next sample, waits for its train
// request (await). One short answer per model received.
func (p *Peer) lateModel(m Message) {
	p.stats.ModelsLate++
	if m.Attempt > 0 {
		p.send(p.over(m.From, m.Round))
	}
}

// over is MsgOver(k) to peer to.
func (p *Peer) over(to ident.Peer, k uint64) Message {
	return Message{Type: MsgOver, To: to, Round: k, Count: max(p.done[k], 1)}
}
