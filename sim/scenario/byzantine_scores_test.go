package scenario

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestByzantineHealthScoresQuick: with the neighbourhood check under an
// attack, the lab reports how the check's scores of the attackers'
// models compare with the honest neighbours' (attacker_scored_lower,
// and the report's line), and sign-flipped models, which no honest
// peer's data agrees with, score below the honest ones in most pairs.
// One order at quick size: a mechanism; the lab's numbers for the
// adaptive attacks are in docs/RESULTS.md.
func TestByzantineHealthScoresQuick(t *testing.T) {
	out := byzQuick(t, "f=0.2 rules=clipped-fedlay+health attacks=sign-flip orders=1 victims=0 healthref=best patience=1 moves=0")
	m := regexp.MustCompile(`(?m)^byzantine f=0\.2 seed=1 attack=sign-flip rule=clipped-fedlay\+health honest_acc=\S+ health_alarms=\S+ health_moves=0 victim_captures=0 victim_moves=0 attacker_scored_lower=(\d\.\d+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no attacker_scored_lower on the attacked row:\n%s", out)
	}
	if v, _ := strconv.ParseFloat(m[1], 64); v < 0.8 {
		t.Errorf("sign-flipped models scored below the honest ones in %.3f of the pairs: want at least 0.8", v)
	}
	if !strings.Contains(out, "f=0.2 sign-flip: the attackers' models scored below an honest neighbour's on the receiver's data in "+m[1]+" of the pairs") {
		t.Errorf("the report does not give the share:\n%s", out)
	}
	if regexp.MustCompile(`attack=(none|absent) rule=clipped-fedlay\+health .*attacker_scored_lower`).MatchString(out) {
		t.Errorf("a run without attackers reports a score separation:\n%s", out)
	}
}
