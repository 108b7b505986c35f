package methodsim

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/protocol/evalreq"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/selection"
	"github.com/peerlearn/peerlearn/types/ident"
)

// SelectionRun is decentralized learning with per-peer neighbour
// selection (the PENS thesis: Random, Greedy, EpsilonGreedy, PENS,
// RandomWeighted, Local, and the simulator-only Oracle; package
// selection) run as real peers run it: one method.PENS core per peer
// (the core peer/netpeer drives for a "pens" task), driven by CoreRun in
// virtual time, every other peer a candidate. Round 0 trains the common
// initial model; then each peer, on its own (no global barrier), round
// after round:
//
//  1. draws the candidate samples its policy's Plan asks for (distinct
//     peers, never itself, from its own seeded source);
//  2. if the plan says so, sends every distinct sampled candidate an
//     evalreq request carrying its current model, which the candidate's
//     core evaluates on its training data (rate limited by its
//     responder) and answers with loss and accuracy; a candidate that
//     has not answered within Timeout counts as timed out;
//  3. lets the policy select, asks the selected peers for their current
//     models (Timeout again), averages what arrived with the policy's
//     weights (selection.Average) and trains from the average.
//
// The logic is the core's alone: this driver only builds the cores,
// counts what they report (OnAverage, their statuses and responders) and
// snapshots each peer's model of a round as the peer finishes it, so
// that After sees every peer's round-t model. Trainings and evaluations
// run on the pool at fixed points of virtual time, so a seed gives one
// result on any number of cores.
type SelectionRun struct {
	Peers *Peers
	// Devices and Links time trainings and transfers (see the package
	// comment, "Model of time").
	Devices []Device
	Links   *Links
	// Policy returns peer i's selection configuration (the core sets
	// Self).
	Policy func(i int) (selection.Config, error)
	// Rounds is the number of communication rounds after round 0 (at
	// least 1: the cores' MaxRounds).
	Rounds int
	// EvalSamples bounds the responder's training samples an evaluation
	// request is measured on (its first ones); 0: all.
	EvalSamples int
	// Timeout bounds a round's poll and its wait for the selected
	// models, in virtual time (0: SelectionTimeout).
	Timeout time.Duration
	// Responder bounds the evaluations each peer does for others (zero:
	// evalreq.DefaultResponderConfig); rate-limited requests are counted
	// in the result.
	Responder evalreq.ResponderConfig
	// Seed seeds the peers' sampling and selection sources.
	Seed uint64
	Pool *Pool
	// Measure, if not nil, says which rounds After is called for (nil:
	// every one).
	Measure func(t int) bool
	// After, if not nil, is called once every peer holds its model of
	// round t (0 included) with those models, models[i] peer i's; an
	// error ends the run.
	After func(t int, models [][]float32) error
	// Ctx, if not nil, is checked as the run goes.
	Ctx      context.Context
	Progress io.Writer
	Label    string
}

// SelectionResult is what a SelectionRun did.
type SelectionResult struct {
	// Ledger holds every peer's traffic, training and evaluation work.
	Ledger *Ledger
	// Policies are the cores' policies at the end (PENS: Neighbours).
	Policies []selection.Policy
	// Models are the peers' final models (of round Rounds).
	Models [][]float32
	// Picks[i][j] counts the rounds peer i averaged with peer j's model
	// (the thesis' communication-pattern heat map, Fig. 4.2), as the
	// cores report their averages.
	Picks [][]int32
	// Evaluations counts the evaluation requests answered, RateLimited
	// those refused for want of a responder token.
	Evaluations, RateLimited uint64
	// Refused counts fetched models the averaging left out.
	Refused int
	// Timeouts counts peer rounds that averaged without every selected
	// model; Stale answers and models that came after their round.
	Timeouts, Stale uint64
	// StepErrors counts messages a core refused; TrainFailures
	// trainings that failed.
	StepErrors, TrainFailures int
	// Time is the virtual time the run took.
	Time time.Duration
}

// selectTick is the cores' tick: the real peers'.
const selectTick = 100 * time.Millisecond

// SelectionTimeout is SelectionRun's default Timeout: far above a
// round's poll on the scenarios' links, so that only a peer that does
// not answer times out.
const SelectionTimeout = time.Minute

// selectStall bounds a run: past it, the rounds have stalled.
const selectStall = 24 * time.Hour

// Run runs round 0 and the Rounds communication rounds.
func (r SelectionRun) Run() (*SelectionResult, error) {
	if r.Peers == nil || r.Peers.N() < 2 || len(r.Devices) != r.Peers.N() || r.Links == nil || r.Policy == nil ||
		r.Pool == nil || r.Rounds < 1 || r.EvalSamples < 0 || r.Timeout < 0 {
		return nil, fmt.Errorf("%w: selection run", ErrConfig)
	}
	n := r.Peers.N()
	initial, err := r.Peers.Peers[0].Params()
	if err != nil {
		return nil, err
	}
	timeout := r.Timeout
	if timeout == 0 {
		timeout = SelectionTimeout
	}
	rc := r.Responder
	if rc == (evalreq.ResponderConfig{}) {
		rc = evalreq.DefaultResponderConfig()
	}
	evalSamples := r.EvalSamples
	if evalSamples == 0 {
		evalSamples = math.MaxInt // dflsim.Head: all of them
	}
	res := &SelectionResult{Picks: make([][]int32, n)}
	cores := make([]*method.PENS, n)
	run := CoreRun{Peers: r.Peers, Devices: r.Devices, Links: r.Links, Cores: make([]method.Core, n), Graph: make([][]int, n),
		Tick: selectTick, Duration: selectStall, EvalSamples: evalSamples, Pool: r.Pool, Ctx: r.Ctx}
	for i, p := range r.Peers.Peers {
		pc, err := r.Policy(i)
		if err != nil {
			return nil, fmt.Errorf("peer %d: %w", i, err)
		}
		row := make([]int32, n)
		res.Picks[i] = row
		cfg := method.PENSConfig{ID: p.Config().ID, Arch: p.ArchTag(), NumParams: p.NumParams(), Policy: pc,
			Timeout: int((timeout + selectTick - 1) / selectTick), MaxRounds: r.Rounds + 1, Responder: rc, // round 0 and Rounds communication rounds
			AnswerBurst: n, Seed: r.Seed ^ (uint64(i)+1)*0x9e3779b97f4a7c15,
			OnAverage: func(_ int, mixed []ident.Peer, refused int) {
				for _, id := range mixed {
					row[r.Peers.Index[id]]++
				}
				res.Refused += refused
			}}
		if cores[i], err = method.NewPENS(cfg, slices.Clone(initial)); err != nil {
			return nil, fmt.Errorf("peer %d: %w", i, err)
		}
		run.Cores[i] = cores[i]
		for j := range n {
			if j != i {
				run.Graph[i] = append(run.Graph[i], j)
			}
		}
	}
	bar := progress.New(r.Progress, r.Label, int64(r.Rounds+1))
	defer bar.Finish()
	rounds := &roundWatch{cores: cores, measure: r.Measure, after: r.After, bar: bar,
		last: make([]int, n), snaps: map[int][][]float32{}, got: map[int]int{}}
	for i := range rounds.last {
		rounds.last[i] = -1
	}
	run.AfterPeer = rounds.peer
	run.Observe = func(time.Duration, *Ledger) (bool, error) { return false, rounds.err }
	out, err := run.Run()
	if err == nil {
		err = rounds.err
	}
	if err != nil {
		return res, err
	}
	if !out.Done {
		return res, fmt.Errorf("%w: selection rounds stalled in %v of virtual time", ErrRun, out.Time)
	}
	res.Ledger, res.Models, res.Time = out.Ledger, out.Models, out.Time
	res.StepErrors, res.TrainFailures = out.StepErrors, out.TrainFailures
	for i, c := range cores {
		res.Policies = append(res.Policies, c.Policy())
		ev := c.EvalStats()
		res.Evaluations += ev.Answered
		res.RateLimited += ev.RateLimited
		st := out.Statuses[i]
		res.Timeouts += st.Timeouts
		res.Stale += st.Stale
	}
	return res, nil
}
