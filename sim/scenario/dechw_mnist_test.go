package scenario

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// roundsField parses "N" (reached at round N) or ">N" (not within N
// rounds: at least N+1).
func roundsField(t *testing.T, s string) (rounds int, reached bool) {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimPrefix(s, ">"))
	if err != nil {
		t.Fatalf("rounds %q: %v", s, err)
	}
	if strings.HasPrefix(s, ">") {
		return n + 1, false
	}
	return n, true
}

// TestDecHWMNISTQuick checks the direction of Table II: DecHW reaches
// 50% of the best accuracy in fewer rounds than DecAvg, from
// heterogeneous initialisations.
func TestDecHWMNISTQuick(t *testing.T) {
	line, out, dir := runQuick(t, "dechw-mnist")
	m := regexp.MustCompile(`^scenario=dechw-mnist alpha=0\.5 r50_dechw=(>?\d+) r50_decavg=(>?\d+) r90_dechw=(>?\d+) r90_decavg=(>?\d+)$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("summary line %q is malformed", line)
	}
	r50hw, ok := roundsField(t, m[1])
	r50avg, _ := roundsField(t, m[2])
	if !ok {
		t.Fatalf("DecHW did not reach 50%% of the best accuracy: %s", line)
	}
	if r50hw >= r50avg {
		t.Errorf("r50: DecHW %d rounds, DecAvg %d: want DecHW faster", r50hw, r50avg)
	}
	r90hw, _ := roundsField(t, m[3])
	r90avg, _ := roundsField(t, m[4])
	if r90hw > r90avg {
		t.Errorf("r90: DecHW %d rounds, DecAvg %d: want DecHW not slower", r90hw, r90avg)
	}
	if !strings.Contains(out, "quick:") {
		t.Errorf("the printed output does not state the scale-down:\n%s", out)
	}
	for _, f := range []string{"dechw_mnist.csv", "dechw_mnist_rounds.csv", "dechw_mnist_acc.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
