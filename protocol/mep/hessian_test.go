package mep

import (
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/types/ident"
)

// DecHW over MEP: peers attach their accumulated Hessian while
// UseHessian (theta = 2 rounds), it travels with the model and reaches
// the neighbour's aggregation; afterwards models travel without it.
func TestHessianTravelsWithModel(t *testing.T) {
	h := newHarness(t, 1, 4, 4)
	dec := map[ident.Peer]*aggregate.DecHW{}
	var hessRounds, plainRounds int
	h.train = func(p *Peer, r *Round) {
		d := dec[p.cfg.ID]
		if d == nil {
			d, _ = aggregate.NewDecHW(aggregate.DecHWConfig{Beta: 1, Theta: 2})
			dec[p.cfg.ID] = d
		}
		out := make([]float32, testParams)
		if self, others, ok := r.Inputs(); ok {
			rep, err := d.Aggregate(self, others, out)
			if err != nil || rep.Refused != nil {
				t.Fatalf("round %d: %v %+v", r.Seq, err, rep)
			}
			if rep.Hessian {
				hessRounds++
			} else {
				plainRounds++
			}
		}
		for i := range out {
			out[i]++
		}
		var hess []float32
		if d.UseHessian() {
			if err := d.Observe([]float32{1, 2, 2}); err != nil {
				t.Fatal(err)
			}
			hess = append([]float32(nil), d.Accumulated()...)
		}
		if _, err := p.ReportTrained(out, hess); err != nil {
			t.Fatal(err)
		}
	}
	h.link(1, 2)
	h.run(40)
	withH, without := 0, 0
	for _, m := range h.sent {
		if m.Type == MsgModel && m.Model.HasHessian {
			withH++
		} else if m.Type == MsgModel {
			without++
		}
	}
	// Per peer: rounds at 4, 8, ..., 40. Round 1 (tick 4) is RoundInit;
	// rounds 2 and 3 aggregate with Hessians; from round 4 on self has
	// none (theta reached after round 3's aggregation): 2 Hessian and 7
	// plain aggregations. Models go out at 7, 11, ..., 39; those
	// published at 4 and 8 carry the Hessian: 2 with, 7 without.
	if withH != 4 || without != 14 || hessRounds != 4 || plainRounds != 14 {
		t.Fatalf("models with/without Hessian %d/%d, rounds Hessian/plain %d/%d; want 4/14, 4/14",
			withH, without, hessRounds, plainRounds)
	}
	for _, d := range dec {
		if d.UseHessian() {
			t.Fatal("theta not reached")
		}
	}
}
