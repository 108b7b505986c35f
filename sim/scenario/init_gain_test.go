package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitGainQuick checks the direction of Fig. 3: without the gain the
// rounds to leave the ln 10 plateau grow with n; with it they do not.
func TestInitGainQuick(t *testing.T) {
	line, out, dir := runQuick(t, "init-gain")
	v := floats(t, `^scenario=init-gain mu_he=(-?\d+\.\d+) mu_gain=(-?\d+\.\d+)$`, line)
	muHe, muGain := v[0], v[1]
	if muGain >= muHe {
		t.Errorf("mu with the gain %.2f, without %.2f: want a smaller exponent with the gain", muGain, muHe)
	}
	if muGain > 0.2 || muHe < 0.4 {
		t.Errorf("mu_gain %.2f (want <= 0.2), mu_he %.2f (want >= 0.4)", muGain, muHe)
	}
	if strings.Contains(out, "not reached") {
		t.Errorf("a run did not reach the threshold (mu is then only a bound):\n%s", out)
	}
	if !strings.Contains(out, "quick:") {
		t.Errorf("the printed output does not state the scale-down:\n%s", out)
	}
	for _, f := range []string{"init_gain_rounds.csv", "init_gain.csv", "init_gain_loss.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
