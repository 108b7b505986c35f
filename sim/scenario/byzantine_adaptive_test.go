package scenario

import (
	"regexp"
	"strconv"
	"testing"
)

// TestByzantineAdaptiveQuick runs the quick attack lab's adaptive part
// with the default rule only (plain fedlay runs without attack: every
// gap's reference): attackers that know the rule and search, each round,
// the strongest model it accepts; reference collapse; the trigger
// backdoor. It checks the goals' direction (issue #26) with room for the
// quick lab's single trajectory: the default rule's worst gap under the
// adaptive attacks at f = 0.2 at most 5 points (goal: 3 on the full
// lab), its cost without attack at most 1 point (goal 0.5), and that the
// backdoor's success rate and the clean accuracy beside it are reported.
// It does not check the backdoor's goal (20%), which the default rule
// does not meet (docs/SECURITY.md).
func TestByzantineAdaptiveQuick(t *testing.T) {
	t.Setenv(byzSelectEnv, "rules=clipped-fedlay attacks=adaptive,adaptive-blind,collapse,backdoor victims=0")
	line, out, _ := runQuick(t, "byzantine")
	v := floats(t, `^scenario=byzantine f=0\.2 worst_gap_none=NA worst_gap_best=NA worst_gap_adaptive=(-?\d+\.\d+) backdoor_asr=(\d+\.\d+) best=NA$`, line)
	if v[0] > 5 {
		t.Errorf("the default rule's worst gap under the adaptive attacks %.2f points: want <= 5", v[0])
	}
	if v[1] < 0 || v[1] > 100 {
		t.Errorf("backdoor success rate %.2f%%: not a rate", v[1])
	}
	m := regexp.MustCompile(`cost of the default defence without attack \(fedlay minus clipped-fedlay, worst seed\): (-?\d+\.\d+) points`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no defence-cost line in:\n%s", out)
	}
	if cost, _ := strconv.ParseFloat(m[1], 64); cost > 1 {
		t.Errorf("the default defence costs %.2f points without attack: want <= 1", cost)
	}
	if !regexp.MustCompile(`(?m)^clipped-fedlay\s+\d+\.\d+\s+\d+\.\d+\s+\d+\.\d+\s+\d+\.\d+\s+-?\d+\.\d+$`).MatchString(out) {
		t.Errorf("no backdoor row (ASR and clean accuracy) for clipped-fedlay in:\n%s", out)
	}
}
