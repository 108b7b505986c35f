package scenario

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestByzantineQuick runs the attack lab scaled down: the undefended
// FedLay rule must collapse under some attack (the lab shows the
// problem), the best robust rule must keep the honest peers within a few
// points of the no-attack accuracy, and the default defence must cost
// little without attack.
func TestByzantineQuick(t *testing.T) {
	line, out, dir := runQuick(t, "byzantine")
	v := floats(t, `^scenario=byzantine f=0\.2 worst_gap_none=(-?\d+\.\d+) worst_gap_best=(-?\d+\.\d+) worst_gap_adaptive=-?\d+\.\d+ backdoor_asr=\d+\.\d+ best=[a-z0-9+-]+$`, line)
	g0, g1 := v[0], v[1]
	if g0 < 20 {
		t.Errorf("plain fedlay's worst gap %.2f points: want >= 20 (an attack that collapses it)", g0)
	}
	if g1 > 5 {
		t.Errorf("best defence's worst gap %.2f points: want <= 5", g1)
	}
	m := regexp.MustCompile(`cost of the default defence without attack \(fedlay minus ` + regexp.QuoteMeta(byzDefault) + `, worst seed\): (-?\d+\.\d+) points`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no defence-cost line in:\n%s", out)
	}
	// The value is one training order's (1.00 at seed 1: noise of about a
	// point); TestByzantineCostQuick checks it over 8 orders.
	if _, err := strconv.ParseFloat(m[1], 64); err != nil {
		t.Errorf("defence-cost line: %v", err)
	}
	if !strings.Contains(out, "quick:") {
		t.Errorf("the printed output does not state the scale-down:\n%s", out)
	}
	for _, f := range []string{"byzantine.csv", "byzantine_worst.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
