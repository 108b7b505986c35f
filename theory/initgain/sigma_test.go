package initgain

import (
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/theory/topology"
)

// The simulated model tracks its expectation round by round.
func TestSigmaModelSimulationMatchesExpectation(t *testing.T) {
	g, _ := topology.RandomRegular(64, 8, seeded(13))
	m := SigmaModel{Params: 2000, Rounds: 25, SigmaInit: 1, SigmaNoise: 1e-3}
	sim, err := m.Simulate(g, seeded(14))
	if err != nil {
		t.Fatal(err)
	}
	exp, err := m.Expected(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(sim) != 26 || len(exp) != 26 {
		t.Fatalf("%d simulated and %d expected points, want 26", len(sim), len(exp))
	}
	for r := range sim {
		if relErr(sim[r].An, exp[r].An) > 0.05 || relErr(sim[r].Ap, exp[r].Ap) > 0.02 {
			t.Errorf("round %d: simulated (σ_an %.4g, σ_ap %.4g), expected (%.4g, %.4g)", r, sim[r].An, sim[r].Ap, exp[r].An, exp[r].Ap)
		}
	}
	// σ_ap levels off at σ_init/√n; σ_an falls to the noise floor.
	last := exp[len(exp)-1]
	if relErr(last.Ap, 1/8.0) > 0.01 {
		t.Errorf("σ_ap after 25 rounds = %v, want ≈ 1/√64", last.Ap)
	}
	if last.An > 3e-3 || last.An < 1e-3 {
		t.Errorf("σ_an after 25 rounds = %v, want near σ_noise = 1e-3", last.An)
	}
}

// Without noise σ_ap → σ_init·‖v_steady‖ exactly, also off regular graphs.
func TestSigmaModelLimitIsVSteadyNorm(t *testing.T) {
	ba, _ := topology.BarabasiAlbert(80, 2, seeded(15))
	m := SigmaModel{Params: 1000, Rounds: 300, SigmaInit: 2}
	exp, err := m.Expected(ba)
	if err != nil {
		t.Fatal(err)
	}
	nrm, _ := topology.VSteadyNorm(ba)
	want := 2 * nrm * math.Sqrt(1-1.0/1000)
	last := exp[len(exp)-1]
	if relErr(last.Ap, want) > 1e-6 || last.An > 1e-6 {
		t.Errorf("limit (σ_an, σ_ap) = (%v, %v), want (0, %v)", last.An, last.Ap, want)
	}
	if relErr(exp[0].Ap, 2*math.Sqrt(1-1.0/1000)) > 1e-15 || relErr(exp[0].An, 2*math.Sqrt(1-1.0/80)) > 1e-12 {
		t.Errorf("round 0: (σ_an, σ_ap) = (%v, %v)", exp[0].An, exp[0].Ap)
	}
}

func TestSigmaModelErrors(t *testing.T) {
	g, _ := topology.Ring(10)
	ok := SigmaModel{Params: 10, Rounds: 2, SigmaInit: 1}
	for name, err := range map[string]error{
		"nil graph":  func() error { _, err := ok.Simulate(nil, seeded(1)); return err }(),
		"nil rng":    func() error { _, err := ok.Simulate(g, nil); return err }(),
		"one param":  func() error { _, err := SigmaModel{Params: 1, SigmaInit: 1}.Expected(g); return err }(),
		"σ_init 0":   func() error { _, err := SigmaModel{Params: 4}.Expected(g); return err }(),
		"noise < 0":  func() error { _, err := SigmaModel{Params: 4, SigmaInit: 1, SigmaNoise: -1}.Expected(g); return err }(),
		"rounds < 0": func() error { _, err := SigmaModel{Params: 4, Rounds: -1, SigmaInit: 1}.Expected(g); return err }(),
		"too big": func() error {
			big, _ := topology.Ring(maxExpectedNodes + 1)
			_, err := ok.Expected(big)
			return err
		}(),
	} {
		if !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
}
