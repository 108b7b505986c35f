package learn

import (
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// A late joiner has no model to centre a robust rule on; the MEP hands it
// the first neighbour's model as "self". When that neighbour lies (a
// model of huge values), plain FedLay adopts something far outside the
// honest models, while under a robust rule the joiner adopts the
// coordinate-wise median, which lies between the two honest models at
// every parameter.
func TestRobustJoinerAdoptsMedian(t *testing.T) {
	tk := newTask(t, 4, 60, 6)
	for _, agg := range []string{"fedlay", aggregate.SafeDefault} {
		peers := newPeers(t, tk, func(_ int, c *Config) { c.Aggregator = agg })
		syncRounds(t, peers[:2], [][]int{{1}, {0}}, 2, false)
		a, _ := peers[0].Contribution()
		b, _ := peers[1].Contribution()
		liar := a
		liar.From, liar.Params = peerID(9), make([]float32, len(a.Params))
		for i := range liar.Params {
			liar.Params[i] = 1e6
		}
		joiner := peers[3]
		w := joiner.newWork(&Work{kind: workAdopt, self: liar, others: []aggregate.Contribution{a, b}})
		w.Run()
		if err := joiner.Finish(w); err != nil {
			t.Fatal(err)
		}
		outside := 0
		for i, v := range joiner.Mixed() {
			if v < min(a.Params[i], b.Params[i]) || v > max(a.Params[i], b.Params[i]) {
				outside++
			}
		}
		robust := aggregate.IsRobustName(agg)
		if robust && outside != 0 || !robust && outside != len(a.Params) {
			t.Errorf("%s: %d of %d adopted parameters outside the honest models", agg, outside, len(a.Params))
		}
	}
}
