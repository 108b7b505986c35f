package learn

import (
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/protocol/mep"
)

// joinWithOneModel: peer 0 joins with one neighbour, whose model (its
// own initial model times -100: sign-flipped and far too large) has
// arrived before peer 0's first round. It returns peer 0's metrics after
// that round and the largest magnitude in its published model.
func joinWithOneModel(t *testing.T, aggregator string) (Metrics, float64) {
	t.Helper()
	tk := newTask(t, 2, 60, 3)
	peers := newPeers(t, tk, func(_ int, c *Config) { c.Aggregator = aggregator })
	p, liar := peers[0], peers[1]
	if err := p.SetNeighbors([]mep.Neighbor{{ID: liar.Config().ID, Period: 4}}); err != nil {
		t.Fatal(err)
	}
	ps, err := liar.Params()
	if err != nil {
		t.Fatal(err)
	}
	for i := range ps {
		ps[i] *= -100
	}
	c := p.mepConfig()
	m := mep.Message{Type: mep.MsgModel, From: liar.Config().ID, To: p.Config().ID, Version: 1,
		Fingerprint: mep.FingerprintOf(ps, nil), Params: ps,
		Model: mep.ModelHeader{Task: c.Task, Arch: c.Arch, NumParams: uint32(len(ps)), DataSize: 1 << 40, Period: 4, DataConf: 1}}
	if err := p.Step(m); err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if err := p.Tick(); err != nil {
			t.Fatal(err)
		}
		if w := p.Ready().Work; w != nil {
			w.Run()
			if err := p.Finish(w); err != nil {
				t.Fatal(err)
			}
			var big float64
			for _, x := range p.Published() {
				big = max(big, math.Abs(float64(x)))
			}
			return p.Metrics(), big
		}
	}
	t.Fatal("no first round")
	return Metrics{}, 0
}

// TestRobustJoinerDoesNotAdoptALoneModel: under a robust rule a joiner
// holding a single neighbour model starts from its own initial model
// instead of adopting it (the median of one model is that model). The
// plain rule adopts it, and with it the liar's scale, so the check can
// fail.
func TestRobustJoinerDoesNotAdoptALoneModel(t *testing.T) {
	robust, robustMax := joinWithOneModel(t, "clipped-fedlay")
	plain, plainMax := joinWithOneModel(t, "fedlay")
	t.Logf("largest parameter after the first round: clipped-fedlay %.3g (adopted %d), fedlay %.3g (adopted %d)",
		robustMax, robust.Adopted, plainMax, plain.Adopted)
	if robust.Adopted != 0 || robust.Rounds != 1 || robustMax > 10 {
		t.Errorf("clipped-fedlay joiner: %+v, largest parameter %.3g: want its own first round, no liar's scale", robust, robustMax)
	}
	if plain.Adopted != 1 || plainMax < 10 {
		t.Errorf("fedlay joiner: adopted %d, largest parameter %.3g: want the lone model adopted (the contrast)", plain.Adopted, plainMax)
	}
}
