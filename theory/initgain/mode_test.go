package initgain

import (
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/theory/topology"
)

func TestGainsPerMode(t *testing.T) {
	g, _ := topology.RandomRegular(64, 4, seeded(11))
	ba, _ := topology.BarabasiAlbert(64, 2, seeded(12))
	baGain, _ := ExactGain(ba)
	for _, c := range []struct {
		cfg  Config
		want float64
	}{
		{Config{Mode: Independent}, 1},
		{Config{Mode: CommonSeed, CommonSeed: 5}, 1},
		{Config{Mode: Exact, Graph: g}, 8},
		{Config{Mode: Exact, Graph: ba}, baGain},
		{Config{Mode: Approx, NEstimate: 100, Family: Regular{}}, 10},
		{Config{Mode: Approx, NEstimate: 100, Family: ScalingLaw{Alpha: 0.25}}, math.Sqrt(10)},
	} {
		gain, err := Gains(c.cfg)
		if err != nil {
			t.Fatalf("%v: %v", c.cfg.Mode, err)
		}
		for layer := range 4 { // the same factor for every layer
			if got := gain(layer); relErr(float64(got), c.want) > 1e-6 {
				t.Errorf("%v: layer %d gain %v, want %v", c.cfg.Mode, layer, got, c.want)
			}
		}
	}
}

func TestInitSeed(t *testing.T) {
	common := Config{Mode: CommonSeed, CommonSeed: 42}
	own := Config{Mode: Approx}
	if common.InitSeed(7) != 42 || common.InitSeed(8) != 42 {
		t.Error("common-seed mode must give every node the shared seed")
	}
	if own.InitSeed(7) != 7 {
		t.Error("uncoordinated modes must keep the node's own seed")
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []Mode{Independent, Exact, Approx, CommonSeed} {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMode("he"); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("ParseMode(he): %v", err)
	}
	if s := Mode(9).String(); s != "Mode(9)" {
		t.Errorf("unknown mode prints %q", s)
	}
}

func TestGainsErrors(t *testing.T) {
	for name, cfg := range map[string]Config{
		"zero mode":        {},
		"exact, no graph":  {Mode: Exact},
		"approx, no n":     {Mode: Approx, Family: Regular{}},
		"approx, no model": {Mode: Approx, NEstimate: 10},
		"gain > float32":   {Mode: Approx, NEstimate: 10, Family: ScalingLaw{Alpha: 100}},
	} {
		if _, err := Gains(cfg); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
}
