package method

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/protocol/evalreq"
	"github.com/peerlearn/peerlearn/protocol/gossip"
	"github.com/peerlearn/peerlearn/protocol/selection"
	"github.com/peerlearn/peerlearn/types/ident"
)

// PENS wire: a tag byte, then the sub-protocol's own encoding.
const (
	tagEval  = 'E' // an evalreq message (a request carries the model as payload)
	tagAsk   = 'A' // a model request: round u64
	tagModel = 'M' // a gossip MsgModel header (Age: the round asked for) + payload
)

// PENSConfig configures a PENS-family core (selection's policies).
type PENSConfig struct {
	ID        ident.Peer
	Arch      string
	NumParams int
	// Policy is the selection policy's configuration (Self is set to ID).
	Policy selection.Config
	// Timeout bounds, in ticks, a round's evaluation poll and its wait
	// for the selected neighbours' models.
	Timeout int
	// MaxRounds ends training after so many trainings, round 0's
	// included (0: no bound), as Gossip's and D-PSGD's MaxRounds do: a
	// task's max_rounds is the trainings a peer runs, whatever its method.
	MaxRounds int
	// RoundTicks is the least time between two rounds' starts (0: a
	// round starts when the last one's training ends), so that step 1's
	// history is not all drawn from the first moments' small view.
	RoundTicks int
	// Settle holds round 1 (the first that samples candidates) until the
	// peer's view has not changed for Settle ticks, or holds at least a
	// full sample (the policy's Plan size): PENS keeps the peers its
	// step-1 samples ranked best, and a sample drawn from the two or
	// three peers of an overlay still forming puts wrong-cluster peers
	// in the history with a whole round's weight (issue #18). 0: round
	// 1 starts as soon as there is a peer.
	Settle int
	// SettleBound bounds that wait: round 1 starts at the latest
	// SettleBound ticks after NewPENS, on whatever view there is (an
	// overlay that keeps changing must not stall training). Required
	// (>= Settle) when Settle is set.
	SettleBound int
	// Responder bounds the evaluations this peer does for others.
	Responder evalreq.ResponderConfig
	// AnswerBurst bounds the model requests answered in a burst (one
	// more every tick): each costs a model's upload.
	AnswerBurst int
	// Seed seeds the core's sampling and selection.
	Seed uint64
	// OnAverage, if not nil, is told each average the core trains from:
	// its round, the peers whose models went in and how many fetched
	// models selection.Average refused. It observes, never steers (the
	// simulator's communication-pattern heat map); real peers leave it
	// nil.
	OnAverage func(round int, mixed []ident.Peer, refused int)
}

type pensPhase uint8

const (
	phTraining pensPhase = iota
	phIdle               // no peers to sample yet, the view not settled, or RoundTicks not over
	phPolling            // waiting for the candidates' evaluations
	phSelfEval           // waiting for the own-model evaluation
	phFetching           // waiting for the selected neighbours' models
	phDone               // MaxRounds trained
)

var phaseNames = [...]string{"training", "idle", "evaluating", "evaluating", "fetching", "done"}

// selfToken is the Eval token of the peer's own-model evaluation.
const selfToken = 0

// PENS runs a selection policy (the PENS thesis' Random, Greedy,
// EpsilonGreedy, PENS, RandomWeighted, or Local; in the simulator also
// the Oracle baseline, which needs the true clusters no task spec
// gives, so real peers refuse it) on real and simulated peers, in
// rounds per peer (no global barrier): after training, it samples
// candidates among its peers (the overlay's view), asks them to evaluate
// its model on their data if the policy's plan says so (evalreq, with a
// timeout), lets the policy select, fetches the selected peers' current
// models (with a timeout), averages with the policy's weights
// (selection.Average) and trains from the average. It answers the same
// requests from others: evaluations through an evalreq.Responder (rate
// limited), model requests from a token bucket.
type PENS struct {
	cfg  PENSConfig
	pol  selection.Policy
	rng  *rand.Rand
	resp *evalreq.Responder

	peers     []ident.Peer
	viewAt    int64 // tick the view last changed
	now       int64
	started   int64 // tick the current round started
	round     int
	resumed   int // rounds before a Resume (polRound)
	phase     pensPhase
	initial   []float32 // what round 0 trains from: the model until round 0 is trained
	published []float32
	from      []float32 // what the outstanding Train started from

	plan    selection.Plan
	samples [][]ident.Peer
	poll    *evalreq.Poll
	nextReq uint64
	cands   [][]selection.Candidate
	selfAcc float64
	sel     []selection.Candidate
	fetched map[ident.Peer][]float32
	until   int64

	pending   map[uint64]evalreq.Message // evaluations for others, by token
	nextToken uint64
	answers   int // model-request tokens

	sends []Send
	train *Train
	evals []Eval
	stats pensStats
}

type pensStats struct {
	sent, received, refused, stale, timeouts uint64
	candidates, selected                     []ident.Peer
}

// NewPENS returns a core about to train round 0 from initial (kept: do
// not modify it).
func NewPENS(cfg PENSConfig, initial []float32) (*PENS, error) {
	cfg.Policy.Self = cfg.ID
	pol, err := selection.New(cfg.Policy)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	rc := cfg.Responder
	rc.ID, rc.Arch, rc.NumParams = cfg.ID, cfg.Arch, cfg.NumParams
	resp, err := evalreq.NewResponder(rc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if cfg.Timeout < 1 || cfg.MaxRounds < 0 || cfg.RoundTicks < 0 || cfg.AnswerBurst < 1 || len(initial) != cfg.NumParams {
		return nil, fmt.Errorf("%w: Timeout %d, MaxRounds %d, AnswerBurst %d, %d initial parameters of %d",
			ErrConfig, cfg.Timeout, cfg.MaxRounds, cfg.AnswerBurst, len(initial), cfg.NumParams)
	}
	if cfg.Settle < 0 || cfg.SettleBound < 0 || (cfg.Settle > 0 && cfg.SettleBound < cfg.Settle) {
		return nil, fmt.Errorf("%w: Settle %d, SettleBound %d", ErrConfig, cfg.Settle, cfg.SettleBound)
	}
	p := &PENS{cfg: cfg, pol: pol, rng: rand.New(rand.NewPCG(cfg.Seed, 0x70656e73)), resp: resp, initial: initial,
		pending: map[uint64]evalreq.Message{}, nextReq: 1, nextToken: 1, answers: cfg.AnswerBurst}
	p.startTrain(initial)
	return p, nil
}

// Policy returns the selection policy (PENS: *selection.PENS).
func (p *PENS) Policy() selection.Policy { return p.pol }

// SetPeers implements Core: the candidates' pool (the overlay's view).
func (p *PENS) SetPeers(ids []ident.Peer) error {
	for i, id := range ids {
		if id == p.cfg.ID || id == (ident.Peer{}) || slices.Contains(ids[:i], id) {
			return fmt.Errorf("%w: peer %v", ErrConfig, id)
		}
	}
	if !sameView(p.peers, ids) {
		p.viewAt = p.now
	}
	p.peers = slices.Clone(ids)
	return nil
}

// sameView reports whether a and b, each without repeats, hold the same
// peers in any order.
func sameView(a, b []ident.Peer) bool {
	if len(a) != len(b) {
		return false
	}
	for _, id := range b {
		if !slices.Contains(a, id) {
			return false
		}
	}
	return true
}

// settled reports whether round 1 may sample the view (see
// PENSConfig.Settle); later rounds always may.
func (p *PENS) settled() bool {
	if p.polRound() > 1 || p.cfg.Settle == 0 {
		return true
	}
	plan := p.pol.Plan(p.polRound())
	if plan.Samples == 0 || plan.Size == 0 {
		return true // Local: nothing to draw from the view
	}
	return len(p.peers) >= plan.Size || p.now-p.viewAt >= int64(p.cfg.Settle) || p.now >= int64(p.cfg.SettleBound)
}

func (p *PENS) startTrain(from []float32) {
	p.phase, p.from = phTraining, from
	p.train = &Train{Params: slices.Clone(from)}
}

// Trained implements Core.
func (p *PENS) Trained(params []float32, _ int) error {
	if p.phase != phTraining {
		return ErrNoEval
	}
	if params == nil {
		params = p.from
	}
	p.published, p.from = params, nil
	p.round++
	if p.cfg.MaxRounds > 0 && p.round >= p.cfg.MaxRounds {
		p.phase = phDone
		return nil
	}
	p.startRound()
	return nil
}

// startRound samples candidates and polls them if the plan says so.
func (p *PENS) startRound() {
	if len(p.peers) == 0 || !p.settled() || (p.polRound() > 1 && p.now-p.started < int64(p.cfg.RoundTicks)) {
		p.phase = phIdle
		return
	}
	p.started = p.now
	p.plan = p.pol.Plan(p.polRound())
	p.samples = p.samples[:0]
	var targets []ident.Peer
	for range p.plan.Samples {
		s := pick(p.peers, p.plan.Size, p.rng)
		p.samples = append(p.samples, s)
		for _, id := range s {
			if !slices.Contains(targets, id) {
				targets = append(targets, id)
			}
		}
	}
	p.stats.candidates = targets
	if !p.plan.Evaluate || len(targets) == 0 {
		p.afterPoll(nil)
		return
	}
	poll, msgs, err := evalreq.NewPoll(evalreq.PollConfig{ID: p.cfg.ID, Round: uint64(p.round), FirstReqID: p.nextReq,
		Timeout: p.cfg.Timeout, Model: evalreq.ModelHeader{Arch: p.cfg.Arch, NumParams: uint32(p.cfg.NumParams)}}, targets, p.published)
	if err != nil {
		p.afterPoll(nil)
		return
	}
	p.nextReq += uint64(len(targets))
	p.poll, p.phase = poll, phPolling
	for _, m := range msgs {
		p.sendEval(m)
	}
}

// pick returns k distinct peers of xs drawn uniformly (all, shuffled,
// when k >= len(xs)).
func pick(xs []ident.Peer, k int, rng *rand.Rand) []ident.Peer {
	c := slices.Clone(xs)
	k = min(k, len(c))
	for i := range k {
		j := i + rng.IntN(len(c)-i)
		c[i], c[j] = c[j], c[i]
	}
	return c[:k]
}

// afterPoll turns the poll's results into candidates and selects.
func (p *PENS) afterPoll(rs []evalreq.Result) {
	byPeer := map[ident.Peer]evalreq.Result{}
	for _, r := range rs {
		byPeer[r.Peer] = r
	}
	p.poll = nil
	p.cands = p.cands[:0]
	for _, s := range p.samples {
		r := make([]evalreq.Result, len(s))
		for i, id := range s {
			r[i] = evalreq.Result{Peer: id, Status: evalreq.TimedOut}
			if x, ok := byPeer[id]; ok {
				r[i] = x
			}
		}
		p.cands = append(p.cands, selection.FromResults(r))
	}
	if p.plan.SelfEvaluate {
		p.phase = phSelfEval
		p.evals = append(p.evals, Eval{Token: selfToken, Params: p.published})
		return
	}
	p.selectAndFetch()
}

func (p *PENS) selectAndFetch() {
	sel, err := p.pol.Select(p.polRound(), p.cands, p.rng)
	if err != nil || len(sel) == 0 {
		p.stats.selected = nil
		p.startTrain(p.published) // Local, or nobody to average with
		return
	}
	p.sel, p.fetched, p.until, p.phase = sel, map[ident.Peer][]float32{}, p.now+int64(p.cfg.Timeout), phFetching
	p.stats.selected = selection.IDs(sel)
	for _, c := range sel {
		p.sends = append(p.sends, Send{To: c.ID, Header: binary.BigEndian.AppendUint64([]byte{tagAsk}, uint64(p.round))})
	}
}

// average mixes the models fetched with the policy's weights and trains.
func (p *PENS) average() {
	var got []selection.Candidate
	var others []aggregate.Contribution
	for _, c := range p.sel {
		if m, ok := p.fetched[c.ID]; ok {
			got = append(got, c)
			others = append(others, aggregate.Contribution{From: c.ID, Arch: p.cfg.Arch, Params: m})
		}
	}
	if len(got) < len(p.sel) {
		p.stats.timeouts++
	}
	p.sel, p.fetched = nil, nil
	if len(got) == 0 {
		p.startTrain(p.published)
		return
	}
	w, err := p.pol.Weights(p.selfAcc, got)
	out := make([]float32, p.cfg.NumParams)
	var rep aggregate.Report
	if err == nil {
		self := aggregate.Contribution{From: p.cfg.ID, Arch: p.cfg.Arch, Params: p.published}
		rep, err = selection.Average(self, others, w, out)
	}
	if err != nil {
		p.startTrain(p.published)
		return
	}
	if p.cfg.OnAverage != nil {
		mixed := make([]ident.Peer, 0, len(got))
		for _, c := range got {
			if !slices.ContainsFunc(rep.Refused, func(r aggregate.Refusal) bool { return r.From == c.ID }) {
				mixed = append(mixed, c.ID)
			}
		}
		p.cfg.OnAverage(p.round, mixed, len(got)-len(mixed))
	}
	p.startTrain(out)
}

// Tick implements Core.
func (p *PENS) Tick() {
	p.now++
	p.resp.Tick()
	p.answers = min(p.answers+1, p.cfg.AnswerBurst)
	switch p.phase {
	case phIdle:
		p.startRound()
	case phPolling:
		p.poll.Tick()
		if p.poll.Done() {
			p.afterPoll(p.poll.Results())
		}
	case phFetching:
		if p.now >= p.until {
			p.average()
		}
	}
}

// Step implements Core.
func (p *PENS) Step(from ident.Peer, header []byte, params []float32) error {
	if len(header) == 0 {
		p.stats.refused++
		return fmt.Errorf("%w: empty", ErrWire)
	}
	var err error
	switch header[0] {
	case tagEval:
		err = p.stepEval(from, header[1:], params)
	case tagAsk:
		err = p.stepAsk(from, header[1:], params)
	case tagModel:
		err = p.stepModel(from, header[1:], params)
	default:
		err = fmt.Errorf("%w: tag %d", ErrWire, header[0])
	}
	if err != nil {
		p.stats.refused++
	}
	return err
}

func (p *PENS) stepEval(from ident.Peer, b []byte, params []float32) error {
	m, err := evalreq.Decode(b)
	switch {
	case err != nil:
		return err
	case m.From != from:
		return fmt.Errorf("%w: %v claims to be %v", ErrForged, from, m.From)
	case len(params) != int(m.PayloadBytes()/4):
		return fmt.Errorf("%w: %d parameters for a %v", ErrPayload, len(params), m.Type)
	}
	m.To, m.Params = p.cfg.ID, params
	if m.Type != evalreq.MsgEvalRequest {
		if p.poll == nil {
			p.stats.stale++
			return nil
		}
		if err := p.poll.Step(m); err != nil {
			return err
		}
		if p.poll.Done() {
			p.afterPoll(p.poll.Results())
		}
		return nil
	}
	reply, evaluate, err := p.resp.Admit(m)
	if err != nil {
		return err
	}
	if !evaluate {
		p.sendEval(reply)
		return nil
	}
	t := p.nextToken
	p.nextToken++
	p.pending[t] = m
	p.evals = append(p.evals, Eval{Token: t, Params: m.Params})
	return nil
}

func (p *PENS) stepAsk(from ident.Peer, b []byte, params []float32) error {
	if len(b) != 8 || params != nil {
		return fmt.Errorf("%w: model request of %d bytes", ErrWire, len(b))
	}
	if p.answers == 0 {
		// The asker times out; a refusal, counted and logged, as every
		// message this core does not act on.
		return fmt.Errorf("%w: a model request from %v", ErrOverBudget, from)
	}
	p.answers--
	h, err := gossip.Encode(gossip.Message{Type: gossip.MsgModel, From: p.cfg.ID, Age: binary.BigEndian.Uint64(b),
		Arch: p.cfg.Arch, NumParams: uint32(p.cfg.NumParams)})
	if err != nil {
		return err
	}
	p.sends = append(p.sends, Send{To: from, Header: append([]byte{tagModel}, h...), Params: p.current()})
	p.stats.sent++
	return nil
}

func (p *PENS) stepModel(from ident.Peer, b []byte, params []float32) error {
	m, err := decodeFrom(from, b, params)
	if err != nil {
		return err
	}
	if m.Type != gossip.MsgModel || m.Arch != p.cfg.Arch || int(m.NumParams) != p.cfg.NumParams {
		return fmt.Errorf("%w: %v of %q", ErrWire, m.Type, m.Arch)
	}
	if p.phase != phFetching || m.Age != uint64(p.round) || !slices.ContainsFunc(p.sel, func(c selection.Candidate) bool { return c.ID == from }) {
		p.stats.stale++
		return nil
	}
	if _, dup := p.fetched[from]; dup {
		p.stats.stale++
		return nil
	}
	p.fetched[from] = params
	p.stats.received++
	if len(p.fetched) == len(p.sel) {
		p.average()
	}
	return nil
}

func (p *PENS) sendEval(m evalreq.Message) {
	h, err := evalreq.Encode(m)
	if err != nil {
		panic(fmt.Sprintf("method: encoding an own evalreq message: %v", err))
	}
	p.sends = append(p.sends, Send{To: m.To, Header: append([]byte{tagEval}, h...), Params: m.Params})
}

// Evaluated implements Core.
func (p *PENS) Evaluated(token uint64, loss, acc float64, samples int) error {
	if token == selfToken {
		if p.phase != phSelfEval {
			return ErrNoEval
		}
		p.selfAcc = acc
		p.selectAndFetch()
		return nil
	}
	req, ok := p.pending[token]
	if !ok {
		return ErrNoEval
	}
	delete(p.pending, token)
	if samples < 1 {
		return nil // failed: the requester times out
	}
	reply, err := p.resp.Answer(req, loss, acc, samples)
	if err != nil {
		return err
	}
	p.sendEval(reply)
	return nil
}

// HasReady implements Core.
func (p *PENS) HasReady() bool { return len(p.sends) > 0 || p.train != nil || len(p.evals) > 0 }

// Ready implements Core.
func (p *PENS) Ready() Ready {
	rd := Ready{Sends: p.sends, Train: p.train, Evals: p.evals}
	p.sends, p.train, p.evals = nil, nil, nil
	return rd
}

// Completed is the last round whose model the core holds (-1 while it
// trains round 0): during round r's polling, fetching and training it
// holds round r-1's; once done, round MaxRounds-1's (MaxRounds trainings).
func (p *PENS) Completed() int { return p.round - 1 }

// EvalStats are the counters of the evaluations this peer did for
// others (Answered: the requests it answered with a result).
func (p *PENS) EvalStats() evalreq.ResponderStats { return p.resp.Stats() }

// Model implements Core.
func (p *PENS) Model() []float32 { return p.published }

// current is the model a model request is answered with: the last
// trained one, and until round 0 is trained the initial one (a peer
// still training round 0 when a faster one's round 1 asks for its model
// answers, rather than leave the asker to time out: issue #18).
func (p *PENS) current() []float32 {
	if p.published == nil {
		return p.initial
	}
	return p.published
}

// Status implements Core.
func (p *PENS) Status() Status {
	st := Status{Method: "pens", Round: p.round, MaxRounds: p.cfg.MaxRounds, Role: phaseNames[p.phase], Peers: len(p.peers),
		ModelsSent: p.stats.sent, ModelsReceived: p.stats.received, Refused: p.stats.refused,
		Timeouts: p.stats.timeouts, Stale: p.stats.stale,
		Candidates: slices.Clone(p.stats.candidates), Selected: slices.Clone(p.stats.selected)}
	if pp, ok := p.pol.(*selection.PENS); ok && p.polRound() > p.cfg.Policy.Step1Rounds {
		st.Neighbours = pp.Neighbours() // (before, it would end step 1)
	}
	return st
}
