package method

import (
	"errors"
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/protocol/plexus"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Plexus is Plexus (package plexus's Peer: Algorithm 1's samples and
// aggregators, Algorithm 2's rounds, the T_agg/T_round fallback) as a
// Core, with the membership view the paper assumes given built by the
// peers themselves:
//
//   - The core pushes its whole view (ID and advertised bandwidth of
//     every member it knows, itself included) as plexus Digests to the
//     peers SetPeers gave it, the overlay's neighbours: to a new
//     neighbour at once, to all of them at the next multiple of
//     DigestEvery ticks after the view changed, and every RefreshEvery
//     ticks (against a lost digest). A received digest adds its members.
//     The overlay is connected, so every view converges to the union of
//     the members, the same set at every peer, and equal views give
//     equal samples and aggregators (hash(ID, round)). Nothing comes
//     from a global list: a peer knows what its neighbours told it.
//   - A digest also carries the newest round its sender knows
//     aggregated: a peer that learns so that the last round
//     (Config.Rounds) is over pushes its view at once, so the end of
//     training floods the overlay and every peer's Status says "done",
//     not only the last sample's.
//   - The core starts training (plexus.Peer.Start, round 1's sample
//     training the common initial model) once its view holds at least
//     two members and has not changed for Settle ticks: the network has
//     stopped growing as far as it can tell. A protocol message from
//     another peer before that (a train request, a model for it to
//     aggregate) means rounds are already running: the core joins them
//     without starting round 1 itself; so does a peer whose neighbours'
//     digests say that rounds were aggregated already.
//   - Members are never removed: a peer that died stays in every view,
//     so views stay equal, and a round that samples it loses its model
//     (the success fraction and T_agg absorb that) or, if it is the
//     round's aggregator, goes through T_round to the next-ranked one.
//     The members that waited rank it last from then on, and so does
//     every peer a fallback aggregator's train request reaches
//     (plexus.View.Missed), until it is heard from (any of its
//     messages, or a digest from it): a dead aggregator costs one
//     T_round, not one per round that samples it.
//     A member view that forgets the dead would need the views to agree
//     on when, which this design does not attempt.
//   - An aggregator that dies after averaging a round, while sending,
//     may leave the next sample without the model (its announcements
//     are short and arrive, its train requests may not): the members of
//     that sample that heard the round was over restart the next one
//     from the newest model they hold, one rank at a time (package
//     plexus, "Failures"), so training resumes after a few T_round
//     instead of stopping for good.
//   - Models go to whichever peer the protocol names (a sample's
//     aggregator, the next sample's members), neighbour or not: the
//     runtime connects on demand (rtc routes the signalling over the
//     overlay and drops the connection after its grace period).
//
// Every digest member is a claim: a hostile peer can add IDs that are
// nobody (they count as dead members, see above). The view is bounded by
// MaxMembers; trained models held at once by plexus.MaxOpenRounds; the
// trainings waiting to run by one (a newer round replaces an older one).
type Plexus struct {
	cfg     PlexusConfig
	p       *plexus.Peer
	initial []float32
	peers   []ident.Peer

	now        int64
	version    uint64 // the view's version at lastChange
	pushed     uint64 // the view's version last pushed to every neighbour
	heard      uint64 // the newest aggregated round a digest claimed
	announced  bool   // the end of training (Config.Rounds) pushed
	lastChange int64
	joined     bool // Start called, or rounds joined by a message

	sends   []Send
	pending *plexus.TrainTask // the next training to run
	cur     uint64            // the round being trained (busy)
	busy    bool
	rounds  int      // trainings finished
	resumed uint64   // the round a Resume continues from (resume.go)
	aggd    []uint64 // rounds aggregated here, the newest recentRounds
	refused uint64   // messages refused before the protocol saw them
	digests Traffic  // digests sent
}

// Traffic counts messages and their bytes on the wire.
type Traffic struct {
	Msgs, Bytes uint64
}

// recentRounds bounds Status.Aggregated.
const recentRounds = 32

// PlexusConfig configures a Plexus core.
type PlexusConfig struct {
	// Peer is the protocol's configuration (ID, advertised bandwidth,
	// model, s, sf, T_agg, T_round in ticks, rounds).
	Peer plexus.Config
	// DigestEvery is the period of pushing a changed view to the
	// neighbours, in ticks (>= 1); RefreshEvery that of pushing it
	// unchanged (0: never; links that lose nothing need none).
	DigestEvery, RefreshEvery int
	// Settle is how long the view must stay unchanged before the core
	// starts round 1, in ticks (>= 1).
	Settle int
	// MaxMembers bounds the view (>= 2); members beyond it are refused.
	MaxMembers int
}

// NewPlexus returns a Plexus core that starts from initial (kept: do not
// modify it), the common initial model every peer of the task draws.
func NewPlexus(cfg PlexusConfig, initial []float32) (*Plexus, error) {
	if cfg.DigestEvery < 1 || cfg.RefreshEvery < 0 || cfg.Settle < 1 || cfg.MaxMembers < 2 {
		return nil, fmt.Errorf("%w: plexus: DigestEvery %d, RefreshEvery %d, Settle %d, MaxMembers %d",
			ErrConfig, cfg.DigestEvery, cfg.RefreshEvery, cfg.Settle, cfg.MaxMembers)
	}
	p, err := plexus.New(cfg.Peer)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if len(initial) != cfg.Peer.NumParams {
		return nil, fmt.Errorf("%w: plexus: initial model of %d parameters, want %d", ErrConfig, len(initial), cfg.Peer.NumParams)
	}
	return &Plexus{cfg: cfg, p: p, initial: initial, version: p.View().Version()}, nil
}

// Peer returns the wrapped protocol peer (for its Stats and View).
func (c *Plexus) Peer() *plexus.Peer { return c.p }

// Digests counts the digests sent (the membership's cost; the peer's
// Stats count the protocol's messages).
func (c *Plexus) Digests() Traffic { return c.digests }

// SetPeers implements Core: the neighbours the view is pushed to.
func (c *Plexus) SetPeers(ids []ident.Peer) error {
	for i, id := range ids {
		if id == c.cfg.Peer.ID || id == (ident.Peer{}) || slices.Contains(ids[:i], id) {
			return fmt.Errorf("%w: plexus peers: %v at %d", ErrConfig, id, i)
		}
	}
	var added []ident.Peer
	for _, id := range ids {
		if !slices.Contains(c.peers, id) {
			added = append(added, id)
		}
	}
	c.peers = slices.Clone(ids)
	c.pushView(added)
	return nil
}

// Tick implements Core.
func (c *Plexus) Tick() {
	c.now++
	c.p.Tick()
	c.noteView()
	if !c.joined && c.p.View().Len() >= 2 && c.now-c.lastChange >= int64(c.cfg.Settle) {
		c.joined = true
		// Rounds that ran before this peer came (newest > 0): it waits
		// to be sampled.
		if c.newest() == 0 && c.resumed == 0 {
			if err := c.p.Start(c.initial); err != nil {
				panic(fmt.Sprintf("method: plexus: %v", err)) // checked in NewPlexus, called once
			}
		}
	}
	refresh := c.cfg.RefreshEvery > 0 && c.now%int64(c.cfg.RefreshEvery) == 0
	end := c.over() && !c.announced
	c.announced = c.announced || end
	if v := c.p.View().Version(); end || refresh || (v != c.pushed && c.now%int64(c.cfg.DigestEvery) == 0) {
		c.pushed = v
		c.pushView(c.peers)
	}
}

// noteView records when the view last changed.
func (c *Plexus) noteView() {
	if v := c.p.View().Version(); v != c.version {
		c.version, c.lastChange = v, c.now
	}
}

// pushView sends the view to peers to, MaxDigestMembers a digest.
func (c *Plexus) pushView(to []ident.Peer) {
	if len(to) == 0 {
		return
	}
	ms := c.p.View().Members()
	for len(ms) > 0 {
		part := ms[:min(len(ms), plexus.MaxDigestMembers)]
		ms = ms[len(part):]
		h, err := plexus.EncodeDigest(plexus.Digest{From: c.cfg.Peer.ID, Newest: c.newest(), Members: part})
		if err != nil {
			panic(fmt.Sprintf("method: plexus: encoding its own view: %v", err)) // the view holds valid members only
		}
		for _, id := range to {
			c.sends = append(c.sends, Send{To: id, Header: h})
			c.digests.Msgs++
			c.digests.Bytes += uint64(len(h))
		}
	}
}

// Step implements Core: a Digest, or a plexus message with its payload.
func (c *Plexus) Step(from ident.Peer, header []byte, params []float32) error {
	err := c.step(from, header, params)
	c.noteView()
	return err
}

func (c *Plexus) step(from ident.Peer, header []byte, params []float32) error {
	if plexus.IsDigest(header) {
		return c.stepDigest(from, header, params)
	}
	m, err := plexus.Decode(header)
	switch {
	case err != nil:
	case m.From != from:
		err = fmt.Errorf("%w: %v claims to be %v", ErrForged, from, m.From)
	case int64(len(params))*4 != m.PayloadBytes():
		err = fmt.Errorf("%w: %d parameters for a %v of %d", ErrPayload, len(params), m.Type, m.Model.NumParams)
	case !c.known(from):
		err = fmt.Errorf("%w: %v joins a view of %d members", plexus.ErrView, from, c.p.View().Len())
	}
	if err != nil {
		c.refused++
		return err
	}
	m.To, m.Params = c.cfg.Peer.ID, params
	if err := c.p.Step(m); err != nil {
		return err // counted in the peer's Stats.Rejected
	}
	// Rounds are running: a peer that had not started joins them here.
	c.joined = true
	return nil
}

// known reports whether id is in the view or fits in it.
func (c *Plexus) known(id ident.Peer) bool {
	_, ok := c.p.View().Bandwidth(id)
	return ok || c.p.View().Len() < c.cfg.MaxMembers
}

func (c *Plexus) stepDigest(from ident.Peer, header []byte, params []float32) error {
	d, err := plexus.DecodeDigest(header)
	switch {
	case err != nil:
	case params != nil:
		err = fmt.Errorf("%w: a digest with a payload", ErrPayload)
	case d.From != from:
		err = fmt.Errorf("%w: %v claims to be %v", ErrForged, from, d.From)
	}
	if err != nil {
		c.refused++
		return err
	}
	c.heard = max(c.heard, d.Newest)
	c.p.View().Heard(from) // alive: ranked as its bandwidth says again
	full := 0
	for _, m := range d.Members {
		if m.ID == c.cfg.Peer.ID {
			continue // its own bandwidth is its own to say
		}
		if !c.known(m.ID) {
			full++
			continue
		}
		c.p.View().Add(m.ID, m.Bandwidth) //nolint:errcheck // DecodeDigest: IDs and bandwidths non-zero
	}
	if full > 0 {
		c.refused++
		return fmt.Errorf("%w: %d members past MaxMembers %d", plexus.ErrView, full, c.cfg.MaxMembers)
	}
	return nil
}

// Trained implements Core. A failed training reports nothing: the round
// goes on without this peer's model.
func (c *Plexus) Trained(params []float32, samples int) error {
	if !c.busy {
		return fmt.Errorf("%w: plexus: no training outstanding", plexus.ErrNoTask)
	}
	c.busy = false
	c.rounds++
	if params == nil {
		return nil
	}
	err := c.p.ReportTrained(c.cur, params, uint64(max(samples, 0)))
	if errors.Is(err, plexus.ErrNoTask) {
		return nil // the round fell out of the window while training
	}
	return err
}

// HasReady implements Core.
func (c *Plexus) HasReady() bool {
	return len(c.sends) > 0 || c.p.HasReady() || (!c.busy && c.pending != nil)
}

// Ready implements Core: the peer's messages and digests to send, its
// next training; its aggregations run here (a weighted mean, on the
// caller's loop).
func (c *Plexus) Ready() Ready {
	for c.p.HasReady() {
		rd := c.p.Ready()
		for _, m := range rd.Messages {
			h, err := plexus.Encode(m)
			if err != nil {
				panic(fmt.Sprintf("method: plexus: encoding a peer's own message: %v", err))
			}
			c.sends = append(c.sends, Send{To: m.To, Header: h, Params: m.Params})
		}
		for _, t := range rd.Train {
			if c.pending == nil || t.Round > c.pending.Round {
				t := t
				c.pending = &t
			}
		}
		for _, a := range rd.Aggregate {
			c.aggregate(a)
		}
	}
	out := Ready{Sends: c.sends}
	c.sends = nil
	if !c.busy && c.pending != nil {
		t := *c.pending
		c.pending = nil
		if c.p.Wanted(t.Round) && t.Round > c.resumed { // a resumed peer has passed its rounds
			c.busy, c.cur = true, t.Round
			out.Train = &Train{Params: slices.Clone(t.Params)}
		}
	}
	return out
}

// aggregate averages a round's models (FedAvg by data size) and hands
// the result back; the peer then pushes it to the next sample.
func (c *Plexus) aggregate(a plexus.AggregateTask) {
	out := make([]float32, c.cfg.Peer.NumParams)
	if _, err := a.FedAvg(out); err != nil {
		panic(fmt.Sprintf("method: plexus: round %d: %v", a.Round, err)) // models checked on arrival, at least one
	}
	if err := c.p.ReportAggregated(a.Round, out); err != nil {
		panic(fmt.Sprintf("method: plexus: round %d: %v", a.Round, err)) // the task was just handed out
	}
	c.aggd = append(c.aggd, a.Round)
	if len(c.aggd) > recentRounds {
		c.aggd = slices.Delete(c.aggd, 0, len(c.aggd)-recentRounds)
	}
}

// newest is the newest round this peer knows aggregated: by its own
// global model, or by a digest's claim.
func (c *Plexus) newest() uint64 {
	g, _ := c.p.Global()
	return max(g, c.heard)
}

// over reports whether this peer knows the last round was aggregated.
func (c *Plexus) over() bool {
	return c.p.Finished() || (c.cfg.Peer.Rounds > 0 && max(c.newest(), c.resumed) >= c.cfg.Peer.Rounds)
}

// Model implements Core: the newest global model this peer knows (a
// round's average), the initial model before any.
func (c *Plexus) Model() []float32 {
	if _, g := c.p.Global(); g != nil {
		return g
	}
	return c.initial
}

// Status implements Core. Round is the newest round the peer took part
// in; Sample and Aggregator are that round's as its view computes them;
// Role is "aggregator" while it collects or averages a round, "trainer"
// while it trains or waits for its model's round to complete, "idle"
// otherwise, "done" once it knows the last round (Config.Rounds) was
// aggregated (a digest's claim suffices: Status only shows it, the core
// still answers the protocol).
func (c *Plexus) Status() Status {
	st := c.p.Stats()
	v := c.p.View()
	k := c.p.Newest()
	s := Status{Method: "plexus", Round: int(max(k, c.resumed)), MaxRounds: int(c.cfg.Peer.Rounds), Role: "idle", Peers: len(c.peers), Members: v.Len(),
		ModelsSent:     st.Sent[plexus.MsgTrain].Msgs + st.Sent[plexus.MsgTrained].Msgs,
		ModelsReceived: st.Received[plexus.MsgTrain].Msgs + st.Received[plexus.MsgTrained].Msgs,
		Refused:        st.Rejected + c.refused, Timeouts: st.AggTimeouts + st.Escalations + st.ResumeTimeouts,
		Stale: st.ModelsLate + st.TrainedLate, Aggregated: slices.Clone(c.aggd)}
	s.Missed = v.MissedMembers()
	if k > 0 {
		s.Sample = v.Sample(k, c.cfg.Peer.SampleSize)
		if a, ok := v.Aggregator(k, c.cfg.Peer.SampleSize); ok {
			s.Aggregator = &a
		}
	}
	member, agg := c.p.Work()
	switch {
	case c.over():
		s.Role = "done"
	case len(agg) > 0:
		s.Role = "aggregator"
	case len(member) > 0 || c.busy:
		s.Role = "trainer"
	}
	return s
}

// Evaluated implements Core: this core asks for no evaluation.
func (*Plexus) Evaluated(uint64, float64, float64, int) error { return ErrNoEval }
