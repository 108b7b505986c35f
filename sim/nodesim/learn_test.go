package nodesim

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// learning returns a Config.Method for a small task in method m (the
// MLP on synthetic MNIST-shaped shards, one local step a round, a 1 s
// period, max_rounds rounds), built as a real peer builds it
// (LearnerConfig, learn.NewPeer, NewMethod); tamper, if not nil, is the
// FedLay hook of the peers it names (nil for the others).
func learning(m string, maxRounds int, tick time.Duration, tamper func(ident.Peer) func(*mep.Message)) func(ident.Peer) (*node.Method, error) {
	syn := synthetic([3]int{28, 28, 1})
	return learners(smallSpec(m, maxRounds), tick, func(id ident.Peer) *data.Dataset {
		return syn.Draw(rand.New(rand.NewPCG(id.Seed(), 7)), 64, syn.Cycle)
	}, tamper)
}

// synthetic is the small task's data: ten classes, each a fixed
// template plus noise, of the given shape (MNIST's, or 8x8 where many
// seeds train: an eighth of the MLP's first layer).
func synthetic(shape [3]int) *data.Synthetic {
	return data.NewSynthetic(rand.New(rand.NewPCG(99, 99)), shape, 10, 0.3)
}

// small is the shape of the tests that train at many seeds.
var small = [3]int{8, 8, 1}

// smallSpec is the small task in method m: one local step of 16 samples
// a round, a 1 s period, max_rounds rounds.
func smallSpec(m string, maxRounds int) task.Spec {
	spec := task.DefaultSpec()
	spec.Name, spec.Method, spec.PeriodMS, spec.LocalEpochs, spec.LocalSteps, spec.Batch, spec.MaxRounds = "nodesim", m, 1000, 0, 1, 16, maxRounds
	if m != "fedlay" {
		spec.Aggregator = "mean" // the method mixes by its own weights
	}
	return spec
}

// learners returns a Config.Method that builds peer id's method core for
// spec on its shard shardOf(id), as a real peer builds it (LearnerConfig,
// learn.NewPeer, NewMethod); tamper as learning's.
func learners(spec task.Spec, tick time.Duration, shardOf func(ident.Peer) *data.Dataset, tamper func(ident.Peer) func(*mep.Message)) func(ident.Peer) (*node.Method, error) {
	return func(id ident.Peer) (*node.Method, error) {
		train := shardOf(id)
		lc, err := node.LearnerConfig(spec, id, train, tick)
		if err != nil {
			return nil, err
		}
		lp, err := learn.NewPeer(lc, train)
		if err != nil {
			return nil, err
		}
		var tm func(*mep.Message)
		if tamper != nil {
			tm = tamper(id)
		}
		return node.NewMethod(spec, lp, tick, tm)
	}
}

// TestLearningPeersFinishAroundACrash: 12 learning peers (Gossip and
// FedLay's MEP) on the real peer core: one crashes after the first
// round; every other core exchanges models with its overlay neighbours,
// trains max_rounds rounds and is done.
func TestLearningPeersFinishAroundACrash(t *testing.T) {
	for _, m := range []string{"gossip", "fedlay"} {
		t.Run(m, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Method = learning(m, 3, cfg.Tick, nil)
			var drops []string
			cfg.Logf = func(id ident.Peer, line string) {
				if strings.Contains(line, "dropped a message") {
					drops = append(drops, line)
				}
			}
			s, _ := start(t, cfg, 12, 0)
			s.Run(1500 * time.Millisecond)
			if err := s.Kill(s.Live()[5]); err != nil {
				t.Fatal(err)
			}
			s.Run(30 * time.Second)
			for _, id := range s.Live() {
				meth := s.Node(id).Method()
				st := meth.Core().Status()
				if meth.RoundsDone() != 3 || st.Role != "done" || st.ModelsReceived == 0 {
					t.Errorf("%v: %d rounds, role %s, %d models received; want 3, done, some",
						id, meth.RoundsDone(), st.Role, st.ModelsReceived)
				}
			}
			// The only refusals: messages in flight from a peer that is
			// no longer (or not yet) a neighbour while the overlay
			// settles around the joins and the crash.
			for _, d := range drops {
				if !strings.Contains(d, "non-neighbour") {
					t.Errorf("refused: %s", d)
				}
			}
			if c := s.Overlay(s.Live()); !c.OK() || len(s.Errors) > 0 {
				t.Errorf("overlay %+v, errors %v", c, s.Errors)
			}
		})
	}
}
