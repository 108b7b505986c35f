package method

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/protocol/evalreq"
	"github.com/peerlearn/peerlearn/protocol/selection"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Eight PENS cores in two clusters (a model evaluates well only on its
// own cluster's data), every peer in every peer's view, messages
// delivered at once, local training pulling a model to its cluster's: after step 1 every peer's
// step-2 neighbours are of its own cluster (precision >= 0.9 over all
// peers: step 1's counts are noisy with 7 candidates), and rounds go on.
// What the simulator reads off the cores agrees with their statuses:
// OnAverage reports every model received (none refused, never the
// peer itself), EvalStats every evaluation done for others, Completed
// the round before the current one.
func TestPENSFindsItsCluster(t *testing.T) {
	const n = 8
	ids := make([]ident.Peer, n)
	index := map[ident.Peer]int{}
	for i := range ids {
		ids[i] = pid(byte(i + 1))
		index[ids[i]] = i
	}
	cluster := func(i int) int { return i % 2 }
	cores := make([]*PENS, n)
	mixed, refused := make([]int, n), 0
	for i := range cores {
		pc := selection.DefaultConfig(selection.KindPENS)
		pc.Selected, pc.Sampled, pc.Samplings, pc.Step1Rounds, pc.Step2Selected = 2, 4, 3, 10, 3
		rc := evalreq.DefaultResponderConfig()
		c, err := NewPENS(PENSConfig{ID: ids[i], Arch: "t", NumParams: 1, Policy: pc, Timeout: 5, Responder: rc, AnswerBurst: 8, Seed: uint64(i),
			OnAverage: func(_ int, ids []ident.Peer, r int) {
				mixed[i] += len(ids)
				refused += r
				for _, id := range ids {
					if index[id] == i {
						t.Errorf("peer %d averaged with itself", i)
					}
				}
			}},
			[]float32{float32(cluster(i))})
		if err != nil {
			t.Fatal(err)
		}
		var view []ident.Peer
		for j, id := range ids {
			if j != i {
				view = append(view, id)
			}
		}
		if err := c.SetPeers(view); err != nil {
			t.Fatal(err)
		}
		cores[i] = c
	}
	type msg struct {
		from, to int
		s        Send
	}
	var queue []msg
	evaluatedForOthers := uint64(0)
	noise := rand.New(rand.NewPCG(3, 4)) // losses differ: no ties broken by ID
	for tick := 0; tick < 200; tick++ {
		for i, c := range cores {
			c.Tick()
			for c.HasReady() {
				rd := c.Ready()
				for _, s := range rd.Sends {
					queue = append(queue, msg{i, index[s.To], s})
				}
				for _, e := range rd.Evals {
					// The evaluator's cluster: self for the own model.
					if e.Token != selfToken {
						evaluatedForOthers++
					}
					loss, acc := 2.0+0.5*noise.Float64(), 0.1
					if int(e.Params[0]) == cluster(i) {
						loss, acc = 0.1+0.5*noise.Float64(), 0.9
					}
					if err := c.Evaluated(e.Token, loss, acc, 10); err != nil {
						t.Fatal(err)
					}
				}
				if rd.Train != nil {
					// Local training pulls the model to its cluster's.
					if err := c.Trained([]float32{float32(cluster(i))}, 10); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		for _, m := range queue {
			// Rounds here take a few ticks: a popular peer's answers
			// run over AnswerBurst at times (the asker times out).
			if err := cores[m.to].Step(ids[m.from], m.s.Header, m.s.Params); err != nil && !errors.Is(err, ErrOverBudget) {
				t.Fatalf("tick %d: %d -> %d: %v", tick, m.from, m.to, err)
			}
		}
		queue = queue[:0]
	}
	right, all := 0, 0
	answered := uint64(0)
	for i, c := range cores {
		st := c.Status()
		if st.Round < 12 || st.ModelsReceived == 0 || len(st.Neighbours) == 0 {
			t.Fatalf("peer %d: %+v", i, st)
		}
		inFlight := uint64(0) // models of a fetch not yet averaged
		if st.Role == "fetching" {
			inFlight = st.ModelsReceived - uint64(mixed[i])
		}
		if uint64(mixed[i])+inFlight != st.ModelsReceived || inFlight >= 3 || c.Completed() != st.Round-1 {
			t.Errorf("peer %d: OnAverage saw %d models, status %d received (role %s); completed %d in round %d",
				i, mixed[i], st.ModelsReceived, st.Role, c.Completed(), st.Round)
		}
		answered += c.EvalStats().Answered
		for _, nb := range st.Neighbours {
			all++
			if cluster(index[nb]) == cluster(i) {
				right++
			}
		}
	}
	if refused != 0 || answered == 0 || answered != evaluatedForOthers {
		t.Errorf("%d refused; %d evaluations answered of %d done for others", refused, answered, evaluatedForOthers)
	}
	if p := float64(right) / float64(all); p < 0.9 {
		t.Errorf("precision %d/%d = %.2f, want >= 0.9", right, all, p)
	}
}
