package methodsim

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/evalreq"
	"github.com/peerlearn/peerlearn/protocol/selection"
	"github.com/peerlearn/peerlearn/sim/dflsim"
)

// SelectionRun is decentralized learning with per-peer neighbour
// selection (the PENS thesis: Random, Greedy, EpsilonGreedy, PENS,
// RandomWeighted, Oracle, Local; package selection) in synchronous
// rounds, as the thesis runs it. Round 0 is every peer's first local
// training; in each of the Rounds rounds after it every peer, from the
// models all peers published at the end of the previous round:
//
//  1. draws the candidate samples its policy's Plan asks for (distinct
//     peers, never itself, uniformly from its own seeded source);
//  2. if the plan says so, asks every sampled candidate to evaluate its
//     current model on the candidate's training data (an evalreq
//     exchange: the model goes out, loss and accuracy come back; a pair
//     asked twice in one round is asked once, since the model has not
//     changed);
//  3. lets the policy select neighbours, fetches their models, averages
//     with the policy's weights (selection.Average) and trains its local
//     epochs or steps from the average (learn.Peer.TrainFrom).
//
// Evaluations and trainings run on the pool; everything else on the
// caller's goroutine in peer order, so a seed gives one result.
type SelectionRun struct {
	Peers *Peers
	// Policy returns peer i's policy (called once per peer).
	Policy func(i int) (selection.Policy, error)
	// Rounds is the number of communication rounds after round 0.
	Rounds int
	// EvalSamples bounds the responder's training samples an evaluation
	// request is measured on (its first ones); 0: all.
	EvalSamples int
	// Seed seeds the peers' sampling and selection sources.
	Seed uint64
	Pool *Pool
	// After, if not nil, is called after every round t (0 included),
	// once the peers have published its models; an error ends the run.
	After func(t int) error
	// Ctx, if not nil, is checked between rounds.
	Ctx      context.Context
	Progress io.Writer
	Label    string
}

// SelectionResult is what a SelectionRun did.
type SelectionResult struct {
	// Ledger holds every peer's traffic, training and evaluation work.
	Ledger *Ledger
	// Policies are the peers' policies at the end (PENS: Neighbours).
	Policies []selection.Policy
	// Picks[i][j] counts the rounds peer i averaged with peer j's model
	// (the thesis' communication-pattern heat map, Fig. 4.2).
	Picks [][]int32
	// Evaluations counts the evaluation requests answered.
	Evaluations int64
	// Refused counts neighbour models the averaging left out.
	Refused int
}

// selectState is one peer's state during a run.
type selectState struct {
	pol     selection.Policy
	rng     *rand.Rand
	plan    selection.Plan
	samples [][]int
	selfAcc float64
}

// Run runs round 0 and the Rounds communication rounds.
func (r SelectionRun) Run() (*SelectionResult, error) {
	if r.Peers == nil || r.Peers.N() < 2 || r.Policy == nil || r.Pool == nil || r.Rounds < 0 {
		return nil, fmt.Errorf("%w: selection run", ErrConfig)
	}
	n := r.Peers.N()
	res := &SelectionResult{Ledger: NewLedger(n), Picks: make([][]int32, n)}
	st := make([]*selectState, n)
	for i := range n {
		pol, err := r.Policy(i)
		if err != nil {
			return nil, fmt.Errorf("peer %d: %w", i, err)
		}
		st[i] = &selectState{pol: pol, rng: rand.New(rand.NewPCG(r.Seed, uint64(i)))}
		res.Policies = append(res.Policies, pol)
		res.Picks[i] = make([]int32, n)
	}
	bar := progress.New(r.Progress, r.Label, int64(r.Rounds+1))
	defer bar.Finish()
	// Round 0: local training from the initial model.
	works := make([]*learn.Work, n)
	for i, p := range r.Peers.Peers {
		w, err := p.SyncWork(nil)
		if err != nil {
			return nil, fmt.Errorf("%w: peer %d: %w", ErrRun, i, err)
		}
		works[i] = w
	}
	if err := r.train(works, res.Ledger); err != nil {
		return res, fmt.Errorf("round 0: %w", err)
	}
	bar.Add(1)
	if err := r.after(0); err != nil {
		return res, err
	}
	for t := 1; t <= r.Rounds; t++ {
		if err := ctxErr(r.Ctx); err != nil {
			return res, err
		}
		if err := r.round(t, st, res); err != nil {
			return res, fmt.Errorf("round %d: %w", t, err)
		}
		bar.Add(1)
		if err := r.after(t); err != nil {
			return res, err
		}
	}
	return res, nil
}

func (r SelectionRun) after(t int) error {
	if r.After == nil {
		return nil
	}
	return r.After(t)
}

// round runs communication round t.
func (r SelectionRun) round(t int, st []*selectState, res *SelectionResult) error {
	n := r.Peers.N()
	// 1. Plans and samples.
	for i, s := range st {
		s.plan = s.pol.Plan(t)
		s.samples = s.samples[:0]
		for range s.plan.Samples {
			s.samples = append(s.samples, drawOthers(s.rng, n, i, s.plan.Size))
		}
	}
	// 2. Evaluation requests, one per distinct (requester, responder)
	// pair of the round, and self-evaluations.
	evals, err := r.evaluate(st, res)
	if err != nil {
		return err
	}
	// 3. Selection, averaging, training.
	works := make([]*learn.Work, n)
	for i, s := range st {
		cands := make([][]selection.Candidate, len(s.samples))
		for k, smp := range s.samples {
			rs := make([]evalreq.Result, len(smp))
			for c, j := range smp {
				rs[c] = evalreq.Result{Peer: r.Peers.IDs[j], Status: evalreq.Pending}
				if m, ok := evals[pair{i, j}]; ok {
					rs[c].Status, rs[c].Loss, rs[c].Accuracy, rs[c].Samples = evalreq.Answered, m.loss, m.acc, uint32(m.samples)
				}
			}
			cands[k] = selection.FromResults(rs)
		}
		if s.plan.SelfEvaluate {
			s.selfAcc = evals[pair{i, i}].acc
		}
		sel, err := s.pol.Select(t, cands, s.rng)
		if err != nil {
			return fmt.Errorf("%w: peer %d: %w", ErrRun, i, err)
		}
		w, err := r.average(i, s, sel, res)
		if err != nil {
			return err
		}
		works[i] = w
	}
	return r.train(works, res.Ledger)
}

// pair is a (requester, responder) evaluation.
type pair struct{ from, to int }

// evalOutcome is one answered evaluation request.
type evalOutcome struct {
	loss, acc float64
	samples   int
	err       error
}

// evaluate runs the round's evaluation requests on the pool and books
// their traffic.
func (r SelectionRun) evaluate(st []*selectState, res *SelectionResult) (map[pair]*evalOutcome, error) {
	peers := r.Peers
	out := map[pair]*evalOutcome{}
	var order []pair
	for i, s := range st {
		if s.plan.SelfEvaluate {
			out[pair{i, i}] = &evalOutcome{}
			order = append(order, pair{i, i})
		}
		if !s.plan.Evaluate {
			continue
		}
		for _, smp := range s.samples {
			for _, j := range smp {
				if _, ok := out[pair{i, j}]; !ok {
					out[pair{i, j}] = &evalOutcome{}
					order = append(order, pair{i, j})
				}
			}
		}
	}
	arch := peers.Peers[0].Config().Arch
	futs := make([]*Future, 0, len(order))
	for _, pr := range order {
		o := out[pr]
		model := peers.Peers[pr.from].Published()
		x, y := dflsim.Head(peers.Local[pr.to], r.EvalSamples)
		futs = append(futs, r.Pool.Go(func(w *Worker) {
			m, err := w.Evaluate(arch, model, x, y)
			o.loss, o.acc, o.samples, o.err = m.Loss, m.Accuracy, m.Samples, err
		}))
	}
	WaitAll(futs)
	req, ans := evalBytes(peers.Peers[0])
	for _, pr := range order {
		o := out[pr]
		if o.err != nil {
			return nil, fmt.Errorf("%w: evaluation of peer %d's model by peer %d: %w", ErrRun, pr.from, pr.to, o.err)
		}
		res.Ledger.Evaluate(pr.to, o.samples)
		if pr.from != pr.to {
			res.Ledger.Send(pr.from, pr.to, req, true)
			res.Ledger.Send(pr.to, pr.from, ans, false)
			res.Evaluations++
		}
	}
	return out, nil
}

// average fetches the selected neighbours' models, averages them with
// the peer's own and starts the peer's training from the average.
func (r SelectionRun) average(i int, s *selectState, sel []selection.Candidate, res *SelectionResult) (*learn.Work, error) {
	peers := r.Peers
	self, ok := peers.Peers[i].Contribution()
	if !ok {
		return nil, fmt.Errorf("%w: peer %d has no model", ErrRun, i)
	}
	others := make([]aggregate.Contribution, 0, len(sel))
	req, _ := evalBytes(peers.Peers[0])
	for _, c := range sel {
		j, ok := peers.Index[c.ID]
		if !ok {
			return nil, fmt.Errorf("%w: peer %d selected an unknown peer", ErrRun, i)
		}
		oc, ok := peers.Peers[j].Contribution()
		if !ok {
			return nil, fmt.Errorf("%w: peer %d has no model", ErrRun, j)
		}
		others = append(others, oc)
		res.Picks[i][j]++
		res.Ledger.Send(j, i, req, true) // the model, with a header like an evaluation request's
	}
	wts, err := s.pol.Weights(s.selfAcc, sel)
	if err != nil {
		return nil, fmt.Errorf("%w: peer %d: %w", ErrRun, i, err)
	}
	avg := make([]float32, len(self.Params))
	rep, err := selection.Average(self, others, wts, avg)
	if err != nil {
		return nil, fmt.Errorf("%w: peer %d: %w", ErrRun, i, err)
	}
	res.Refused += len(rep.Refused)
	w, err := peers.Peers[i].TrainFrom(avg)
	if err != nil {
		return nil, fmt.Errorf("%w: peer %d: %w", ErrRun, i, err)
	}
	return w, nil
}

// train runs the works on the pool and finishes them in peer order.
func (r SelectionRun) train(works []*learn.Work, l *Ledger) error {
	futs := make([]*Future, len(works))
	for i, w := range works {
		futs[i] = r.Pool.Run(w)
	}
	failed := 0
	for i, w := range works {
		futs[i].Wait()
		if err := w.Peer().Finish(w); err != nil {
			failed++ // the peer keeps its model; counted in its metrics
			continue
		}
		l.Train(i, w.Samples(), 0)
	}
	if failed == len(works) {
		return fmt.Errorf("%w: every peer's training failed", ErrRun)
	}
	return nil
}

// evalBytes returns the wire size of an evaluation request (header and
// model) and of its answer.
func evalBytes(p *learn.Peer) (request, answer int64) {
	reqMsg := evalreq.Message{Type: evalreq.MsgEvalRequest, From: p.Config().ID, ReqID: 1, Round: 1,
		Model: evalreq.ModelHeader{Arch: p.ArchTag(), NumParams: uint32(p.NumParams())}}
	ansMsg := evalreq.Message{Type: evalreq.MsgEvalResult, From: p.Config().ID, ReqID: 1, Round: 1, Samples: 1}
	return int64(evalreq.EncodedSize(reqMsg)) + reqMsg.PayloadBytes(), int64(evalreq.EncodedSize(ansMsg))
}

// drawOthers draws k distinct peers of 0..n-1 other than self (all of
// them if fewer), uniformly.
func drawOthers(rng *rand.Rand, n, self, k int) []int {
	pool := make([]int, 0, n-1)
	for j := range n {
		if j != self {
			pool = append(pool, j)
		}
	}
	k = min(k, len(pool))
	for a := range k {
		b := a + rng.IntN(len(pool)-a)
		pool[a], pool[b] = pool[b], pool[a]
	}
	return pool[:k]
}
