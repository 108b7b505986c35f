package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPENSRotatedQuick checks the direction of Tables 4.2 and 4.3 of the
// PENS thesis at the quick scale (25 clients, 20 rounds): PENS picks its
// neighbours almost only from its own cluster, ends well above Random
// and close to Oracle.
func TestPENSRotatedQuick(t *testing.T) {
	line, out, dir := runQuick(t, "pens-rotated")
	v := floats(t, `^scenario=pens-rotated n=(\d+) acc_pens=(\d+\.\d+) acc_random=(\d+\.\d+) acc_oracle=(\d+\.\d+) precision=(\d+\.\d+) recall=(\d+\.\d+)$`, line)
	n, pens, random, oracle, precision, recall := v[0], v[1], v[2], v[3], v[4], v[5]
	if n != 25 {
		t.Errorf("quick run has %v clients, want 25", n)
	}
	if precision < 0.9 || recall < 0.3 {
		t.Errorf("PENS neighbour selection precision %.3f, recall %.3f: want precision >= 0.9 and recall >= 0.3", precision, recall)
	}
	if pens < random+2 {
		t.Errorf("PENS %.2f vs Random %.2f: want PENS at least 2 points above Random", pens, random)
	}
	if pens > oracle+1 || oracle-pens > 3 {
		t.Errorf("PENS %.2f vs Oracle %.2f: want PENS within 3 points below the Oracle", pens, oracle)
	}
	if pens < 80 {
		t.Errorf("PENS accuracy %.2f too low to mean anything", pens)
	}
	if !strings.Contains(out, "quick: 25 clients instead of 50") {
		t.Errorf("the printed output does not state the scale-down:\n%s", out)
	}
	for _, f := range []string{"pens_rotated_25.csv", "pens_rotated_25_acc.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
