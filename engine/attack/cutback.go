package attack

import (
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// CutBack shortens, in models (slot -> model, as Search returns them),
// every slot's model that rule cuts back towards self (reported as an
// aggregate.OutlierCut of severity s = 1 - tau/distance) to the point
// the rule would have used: self + (1 - s) (model - self), at distance
// tau. Why an attacker does it: the cut copy pulls exactly as hard as the
// far model it came from, but the receiver then sees a model inside its
// cut radius, used whole (no severity to charge), whose nearer distance
// also counts in the receiver's reference distance (a low quantile of
// its neighbours' distances) and pulls that down. nb is the simulated
// neighbourhood the models were searched in (only the slots are
// replaced); models are changed in place. A slot the rule leaves out,
// flags or uses whole is left as it is.
func CutBack(rule aggregate.Aggregator, self aggregate.Contribution, nb []aggregate.Contribution, models map[int][]float32) error {
	trial := slices.Clone(nb)
	for s, m := range models {
		trial[s].Params = m
	}
	rep, err := rule.Aggregate(self, trial, make([]float32, len(self.Params)))
	if err != nil {
		return err
	}
	for _, o := range rep.Outliers {
		m, ok := models[o.Index]
		if !ok || o.Action != aggregate.OutlierCut || !(o.Severity > 0 && o.Severity < 1) {
			continue
		}
		keep := 1 - o.Severity
		for i, v := range m {
			m[i] = float32(float64(self.Params[i]) + keep*float64(v-self.Params[i]))
		}
	}
	return nil
}
