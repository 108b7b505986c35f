package scenario

import (
	"regexp"
	"strconv"
	"testing"
)

// TestByzantineAdaptiveQuick runs the quick attack lab's adaptive part
// with the default rule and winsorised-fedlay (plain fedlay runs without
// attack: every gap's reference): attackers that know the rule and
// search, each round, the strongest model it accepts; reference
// collapse; the trigger backdoor at f = 0.1. It checks the goals'
// direction (issue #26) with room for the quick lab's single trajectory:
//   - the default rule's worst gap under the adaptive attacks at f = 0.2
//     at most 5 points (plain fedlay's is 73; the default before its
//     reference floors 5.49, which this fails; with them 3.19 here and
//     3.67 on the full lab: the goal, 3 points, is not met,
//     docs/SECURITY.md);
//   - its cost without attack at most 1 point (goal 0.5);
//   - winsorised-fedlay's backdoor success rate at most 20% (the goal;
//     the default rule's is 81% here) with its clean accuracy under the
//     backdoor within 1 point of its own without attack (the goal). At
//     full size it does not hold (ASR 10-57%, docs/RESULTS.md): this
//     checks that the lab measures the backdoor and that winsorising
//     acts on it, not that the goal is met.
func TestByzantineAdaptiveQuick(t *testing.T) {
	t.Setenv(byzSelectEnv, "rules=clipped-fedlay,winsorised-fedlay attacks=adaptive,adaptive-blind,collapse,backdoor victims=0")
	line, out, _ := runQuick(t, "byzantine")
	v := floats(t, `^scenario=byzantine f=0\.2 worst_gap_none=NA worst_gap_best=NA worst_gap_adaptive=(-?\d+\.\d+) backdoor_asr=(\d+\.\d+) best=NA$`, line)
	if v[0] > 5 {
		t.Errorf("the default rule's worst gap under the adaptive attacks %.2f points: want <= 5", v[0])
	}
	m := regexp.MustCompile(`cost of the default defence without attack \(fedlay minus clipped-fedlay, worst seed\): (-?\d+\.\d+) points`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no defence-cost line in:\n%s", out)
	}
	if cost, _ := strconv.ParseFloat(m[1], 64); cost > 1 {
		t.Errorf("the default defence costs %.2f points without attack: want <= 1", cost)
	}
	row := regexp.MustCompile(`(?m)^winsorised-fedlay\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(-?\d+\.\d+)$`).FindStringSubmatch(out)
	if row == nil {
		t.Fatalf("no backdoor row for winsorised-fedlay in:\n%s", out)
	}
	asr, _ := strconv.ParseFloat(row[2], 64)
	drop, _ := strconv.ParseFloat(row[5], 64)
	if asr > 20 || drop > 1 {
		t.Errorf("winsorised-fedlay: backdoor success %.2f%% (want <= 20), clean accuracy %.2f points below its own without attack (want <= 1)", asr, drop)
	}
}
