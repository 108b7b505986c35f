package node

import (
	"errors"
	"testing"

	"github.com/peerlearn/peerlearn/peer/learn"
)

// TestDefences: by default a learning peer on a clipped rule runs the
// neighbourhood check (as HealthOn) and the suspension (as SuspendOn),
// and on another rule neither; a volunteer turns either off, asks for
// the check on any rule, and is refused the suspension on a rule that
// is not a clipped one, and moves where the check is off.
func TestDefences(t *testing.T) {
	for _, tc := range []struct {
		rule          string
		d             Defences
		health, drift bool
		refused       bool
	}{
		{rule: "clipped-fedlay", health: true, drift: true},
		{rule: "clipped-dechw", health: true, drift: true},
		{rule: "fedlay"},
		{rule: "median"},
		{rule: "clipped-fedlay", d: Defences{Health: Off}, drift: true},
		{rule: "clipped-fedlay", d: Defences{Suspend: Off}, health: true},
		{rule: "clipped-fedlay", d: Defences{Moves: 2}, health: true, drift: true},
		{rule: "fedlay", d: Defences{Health: On}, health: true},
		{rule: "fedlay", d: Defences{Suspend: On}, refused: true},
		{rule: "fedlay", d: Defences{Moves: 1}, refused: true},
		{rule: "clipped-fedlay", d: Defences{Health: Off, Moves: 1}, refused: true},
		{rule: "clipped-fedlay", d: Defences{Moves: -1}, refused: true},
	} {
		c := learn.DefaultConfig()
		c.Aggregator = tc.rule
		err := tc.d.Apply(&c, 10)
		if tc.refused {
			if !errors.Is(err, ErrConfig) {
				t.Errorf("%s %+v: %v, want a refusal", tc.rule, tc.d, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %+v: %v", tc.rule, tc.d, err)
			continue
		}
		if c.Health.On != tc.health || c.Reputation.Drift.Suspend != tc.drift || c.Clip.SuspendedKeepShare != tc.drift {
			t.Errorf("%s %+v: health %v, suspension %v (kept share %v); want %v, %v", tc.rule, tc.d, c.Health.On, c.Reputation.Drift.Suspend, c.Clip.SuspendedKeepShare, tc.health, tc.drift)
		}
		if tc.health && (!c.Health.Check.AgainstBest || c.Health.Check.Patience != 1) {
			t.Errorf("%s %+v: the check %+v, want HealthOn's (against the best, patience 1)", tc.rule, tc.d, c.Health.Check)
		}
		if tc.drift && !c.Reputation.Drift.Async {
			t.Errorf("%s %+v: suspension without its asynchronous form", tc.rule, tc.d)
		}
	}
}
