package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlexusQuick checks the direction of Sec. 4.2 of the Plexus paper at
// the quick scale (40 peers): Plexus reaches the target accuracy with
// several times less communication and training than the best D-PSGD or
// Gossip Learning baseline, and no later.
func TestPlexusQuick(t *testing.T) {
	line, out, dir := runQuick(t, "plexus")
	v := floats(t, `^scenario=plexus n=(\d+) tta_ratio=(\d+\.\d+) comm_ratio=(\d+\.\d+) res_ratio=(\d+\.\d+)$`, line)
	n, tta, comm, res := v[0], v[1], v[2], v[3]
	if n != 40 {
		t.Errorf("quick run has %v peers, want 40", n)
	}
	if comm < 3 {
		t.Errorf("communication ratio %.1f: want Plexus to send at least 3x less than the best DL baseline", comm)
	}
	if res < 3 {
		t.Errorf("resources ratio %.1f: want Plexus to train at least 3x less than the best DL baseline", res)
	}
	if tta < 1 {
		t.Errorf("time ratio %.2f: want Plexus no slower than the best DL baseline", tta)
	}
	if !strings.Contains(out, "quick: 40 peers instead of 100") {
		t.Errorf("the printed output does not state the scale-down:\n%s", out)
	}
	for _, f := range []string{"plexus_40_summary.csv", "plexus_40_curves.csv", "plexus_40_acc_time.png", "plexus_40_acc_bytes.png", "plexus_40_acc_resources.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
