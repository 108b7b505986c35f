package scenario

import (
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
)

// TestByzDefaultIsThePeersDefault: the lab's default defence is what a
// real peer runs by default on a task with aggregate.SafeDefault
// (node.Defences{}): the rule with the kept share, the suspension and
// the check, whose lab settings (against the best, patience, never
// moving) are node.HealthOn's and the default -health-moves 0.
func TestByzDefaultIsThePeersDefault(t *testing.T) {
	c := learn.DefaultConfig()
	c.Aggregator = aggregate.SafeDefault
	if err := (node.Defences{}).Apply(&c, 10); err != nil {
		t.Fatal(err)
	}
	rule, check := splitHealth(byzDefault)
	base, drift := splitDrift(rule)
	// "keepshare-X" is "clipped-X" with ClipConfig.SuspendedKeepShare
	// (engine/aggregate's robustname.go), which SuspendOn sets.
	inner, _ := strings.CutPrefix(aggregate.SafeDefault, "clipped-")
	if !check || !c.Health.On || !drift.Suspend || !c.Reputation.Drift.Suspend || base != "keepshare-"+inner || !c.Clip.SuspendedKeepShare {
		t.Errorf("%s: check %v, suspension %v, rule %s; the peer's default on %s: check %v, suspension %v, kept share %v",
			byzDefault, check, drift.Suspend, base, aggregate.SafeDefault, c.Health.On, c.Reputation.Drift.Suspend, c.Clip.SuspendedKeepShare)
	}
	p := byzScale(false)
	if p.healthBest != c.Health.Check.AgainstBest || p.patience != c.Health.Check.Patience || !p.stay || (node.Defences{}).Moves != 0 {
		t.Errorf("the lab's check: against best %v, patience %d, stay %v; the peer's: %v, %d, %d moves",
			p.healthBest, p.patience, p.stay, c.Health.Check.AgainstBest, c.Health.Check.Patience, (node.Defences{}).Moves)
	}
}
