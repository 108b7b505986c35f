package dflsim

import (
	"context"
	"fmt"
	"io"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/modelcodec"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// SyncRun runs synchronous rounds on a static graph: round 0 is every
// peer's first local training (no communication), or, with
// AggregateFirst, the untrained initial models; each of the Rounds
// communication rounds after it aggregates the neighbours' models of the
// previous round and trains again.
type SyncRun struct {
	Peers []*learn.Peer
	// Graph gives the neighbours: node i is Peers[i].
	Graph  *topology.Graph
	Rounds int
	// AggregateFirst publishes the initial models untrained (round 0), so
	// that the first aggregation precedes any training.
	AggregateFirst bool
	Eval           Eval
	// EvalEvery measures after every EvalEvery-th round (and round 0 and
	// the last); 0 means 1.
	EvalEvery int
	// Stop, if not nil, ends the run after a measured round it approves.
	Stop func(Point) bool
	Pool *Pool
	// Adversary, if not nil, replaces what its Byzantine peers offer
	// their neighbours (attack.go).
	Adversary *Adversary
	// Unlink makes a peer stop hearing from a neighbour it reports as a
	// repeat offender (learn.Peer.ShouldDrop), as the peer runtime does
	// by unlinking: from then on that link carries nothing either way.
	Unlink bool
	// Ctx, if not nil, is checked between rounds.
	Ctx      context.Context
	Progress io.Writer
	Label    string
	// Health, if not nil, runs the neighbourhood check on the peers
	// (health.go): it narrows what a captured peer aggregates with and
	// may give a peer a new placement (a new Graph).
	Health *Health
	// Codec, if its Kind is not 0, is how models travel (a task's codec,
	// engine/modelcodec): every link's model, an attacker's included, is
	// encoded by the sender's end and decoded by the receiver's, which
	// acknowledges at once (a round's models all arrive), and the
	// receiver's rule sees the decoded copy, as on real peers.
	Codec modelcodec.Config
}

// Run runs the rounds and returns the measurements.
func (r SyncRun) Run() ([]Point, error) {
	// r is a copy: a new placement (Health) replaces its Graph, never the caller's.
	if r.Graph == nil || r.Graph.N() != len(r.Peers) || r.Rounds < 0 || r.Pool == nil {
		return nil, fmt.Errorf("%w: synchronous run of %d peers", ErrConfig, len(r.Peers))
	}
	if err := r.Eval.validate(); err != nil {
		return nil, err
	}
	if r.Adversary != nil {
		if err := r.Adversary.Validate(len(r.Peers)); err != nil {
			return nil, err
		}
	}
	var links *modelcodec.Links[int]
	if r.Codec.Kind != 0 {
		var err error
		if links, err = modelcodec.NewLinks[int](r.Codec); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	if r.Health != nil {
		if err := r.Health.init(len(r.Peers)); err != nil {
			return nil, err
		}
	}
	every := max(r.EvalEvery, 1)
	bar := progress.New(r.Progress, r.Label, int64(r.Rounds+1))
	defer bar.Finish()
	var points []Point
	for round := 0; round <= r.Rounds; round++ {
		if err := ctxErr(r.Ctx); err != nil {
			return points, err
		}
		if round == 0 && r.AggregateFirst {
			for i, p := range r.Peers {
				if err := p.PublishInitial(); err != nil {
					return nil, fmt.Errorf("%w: peer %d: %w", ErrRun, i, err)
				}
			}
		} else if err := r.round(links, round > 0); err != nil {
			return points, fmt.Errorf("round %d: %w", round, err)
		}
		bar.Add(1)
		if round%every != 0 && round != r.Rounds {
			continue
		}
		pt, err := measure(r.Pool, r.Peers, r.Eval, Point{Round: float64(round)}).wait()
		if err != nil {
			return points, err
		}
		points = append(points, pt)
		if r.Stop != nil && r.Stop(pt) {
			break
		}
	}
	return points, nil
}

// round runs one round on every peer: works are built from the models of
// the previous round, run on the pool, and finished in peer order. With
// a health check (and check set: a round with models heard), the check
// then runs and may move peers: r.Graph is the run's current overlay.
func (r *SyncRun) round(links *modelcodec.Links[int], check bool) error {
	works := make([]*learn.Work, len(r.Peers))
	heard := make([][]aggregate.Contribution, len(r.Peers))
	for i, p := range r.Peers {
		var nb []aggregate.Contribution
		var idx []int
		for _, j := range r.Graph.Neighbors(i) {
			if r.Unlink && (p.ShouldDrop(r.Peers[j].Config().ID) || r.Peers[j].ShouldDrop(p.Config().ID)) {
				continue
			}
			if c, ok := r.Peers[j].Contribution(); ok {
				nb = append(nb, c)
				idx = append(idx, j)
			}
		}
		if r.Adversary != nil {
			nb = r.Adversary.rewrite(r.Peers, i, idx, nb)
		}
		if links != nil {
			nb = carry(links, i, idx, nb)
		}
		var w *learn.Work
		var err error
		if r.Health != nil {
			heard[i] = append([]aggregate.Contribution{}, nb...)
			w, err = r.Health.work(i, p, r.Health.keep(i, nb))
		} else {
			w, err = p.SyncWork(nb)
		}
		if err != nil {
			return fmt.Errorf("%w: peer %d: %w", ErrRun, i, err)
		}
		works[i] = w
	}
	futs := make([]*Future, len(works))
	for i, w := range works {
		futs[i] = r.Pool.Run(w)
	}
	var failed int
	for i, w := range works {
		futs[i].Wait()
		if err := w.Peer().Finish(w); err != nil {
			failed++ // counted in the peer's metrics; the peer keeps its model
		}
	}
	if failed == len(works) {
		return fmt.Errorf("%w: every peer's round failed", ErrRun)
	}
	if r.Health != nil && check {
		g, err := r.Health.observe(r.Pool, r.Peers, heard, r.Graph)
		if err != nil {
			return err
		}
		r.Graph = g
	}
	return nil
}

// ctxErr is ctx's error, nil for a nil ctx.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}

// carry puts the models peer i receives through the codec links from
// their senders idx and returns what arrives: the decoded copies. A model
// the codec cannot carry (a value beyond modelcodec.MaxAbs, which only an
// attacker's scaled model has) is refused, as a real receiver refuses
// its payload, and left out.
func carry(links *modelcodec.Links[int], i int, idx []int, nb []aggregate.Contribution) []aggregate.Contribution {
	out := nb[:0]
	for k, c := range nb {
		s := links.Sender(idx[k], i)
		payload, _, err := s.Encode(c.Params)
		if err != nil {
			continue
		}
		params, ack, err := links.Receiver(idx[k], i).Decode(payload, len(c.Params))
		if err != nil {
			continue
		}
		if ack != (nn.Digest{}) {
			s.Ack(ack)
		}
		c.Params = params
		out = append(out, c)
	}
	return out
}
