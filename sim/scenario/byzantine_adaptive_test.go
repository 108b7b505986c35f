package scenario

import (
	"regexp"
	"strconv"
	"testing"
)

// TestByzantineAdaptiveQuick runs the quick attack lab's adaptive part
// with the default defence, byzDefault (plain fedlay runs without
// attack: every gap's reference): attackers that know the rule and
// search, each round, the strongest model it accepts; reference
// collapse; the trigger backdoor at f = 0.1. It checks the goals'
// direction (issue #26) with room for the quick lab's single
// trajectory:
//   - the default's worst gap under the adaptive attacks at f = 0.2 at
//     most 5 points (0.81 here; plain fedlay's is 73; clipped-fedlay
//     before its reference floors 5.49, which this fails);
//   - (its cost without attack: TestByzantineCostQuick, over 8 orders);
//   - its backdoor success rate at most 20% with its clean accuracy
//     under the backdoor within 1 point of its own without attack (the
//     goal; 1.18% and 0.78 below here; clipped-fedlay before its
//     coordinate radius, ablate-coord-fedlay, 81%, which this fails).
func TestByzantineAdaptiveQuick(t *testing.T) {
	t.Setenv(byzSelectEnv, "rules="+byzDefault+" attacks=adaptive,adaptive-blind,collapse,backdoor victims=0")
	line, out, _ := runQuick(t, "byzantine")
	v := floats(t, `^scenario=byzantine f=0\.2 worst_gap_none=NA worst_gap_best=NA worst_gap_adaptive=(-?\d+\.\d+) backdoor_asr=(\d+\.\d+) best=NA$`, line)
	if v[0] > 5 {
		t.Errorf("the default defence's worst gap under the adaptive attacks %.2f points: want <= 5", v[0])
	}
	if v[1] > 20 {
		t.Errorf("the default defence's backdoor success %.2f%%: want <= 20", v[1])
	}
	row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(byzDefault) + `\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(-?\d+\.\d+)\s+\d+\.\d+$`).FindStringSubmatch(out)
	if row == nil {
		t.Fatalf("no backdoor row for %s in:\n%s", byzDefault, out)
	}
	if drop, _ := strconv.ParseFloat(row[5], 64); drop > 1 {
		t.Errorf("%s: clean accuracy under the backdoor %.2f points below its own without attack: want <= 1", byzDefault, drop)
	}
}

// TestByzantineCutBackQuick: the adaptive attacks in their cut-back form
// (cutback=1: each model sent already cut back to the rule's tau, so it
// is used whole and never reported) against the default defence in the
// quick lab: its worst gap at most 8 points (1.91 here). clipped-fedlay
// before its consensus check (ablate-cons-fedlay) lost 24.91 here
// (adaptive-blind at 56.74%), which this fails; clipped-fedlay alone
// 2.29 (against attackers that tilt their push for its consensus check;
// 4.64 against ones that do not).
func TestByzantineCutBackQuick(t *testing.T) {
	t.Setenv(byzSelectEnv, "rules="+byzDefault+" attacks=adaptive,adaptive-blind victims=0 cutback=1")
	line, _, _ := runQuick(t, "byzantine")
	v := floats(t, `^scenario=byzantine f=0\.2 worst_gap_none=NA worst_gap_best=NA worst_gap_adaptive=(-?\d+\.\d+) backdoor_asr=NA best=NA$`, line)
	if v[0] > 8 {
		t.Errorf("the default defence's worst gap under the cut-back adaptive attacks %.2f points: want <= 8", v[0])
	}
}

// TestByzantineCostQuick: the default defence's cost without attack in
// the quick lab, paired by training order over 8 orders (one order's
// cost moves by about a point; clipped-fedlay alone: 1.00 with the
// coordinate radius, 0.37 without, while 16 orders gave -0.42 and -0.22
// with a standard error of 0.30; the default here -0.01 ± 0.45), at most
// 1 point (the goal, 0.5, with room for the quick lab's 20 peers; the
// full lab's orders: docs/RESULTS.md).
func TestByzantineCostQuick(t *testing.T) {
	t.Setenv(byzSelectEnv, "f=0 rules="+byzDefault+" orders=8")
	_, out, _ := runQuick(t, "byzantine")
	m := regexp.MustCompile(`cost of ` + regexp.QuoteMeta(byzDefault) + ` without attack per seed \(± standard error over 8 orders, paired by order\): (-?\d+\.\d+) ± (\d+\.\d+); mean`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no 8-order cost line for %s in:\n%s", byzDefault, out)
	}
	if cost, _ := strconv.ParseFloat(m[1], 64); cost > 1 {
		t.Errorf("the default defence costs %.2f ± %s points without attack over 8 orders: want <= 1", cost, m[2])
	}
}
