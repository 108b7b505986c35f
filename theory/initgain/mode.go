package initgain

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/theory/topology"
)

// Mode is how the nodes of a run initialise their models.
type Mode uint8

const (
	// Independent: every node draws He weights from its own seed, no
	// gain (the paper's dashed-line baseline).
	Independent Mode = iota + 1
	// Exact: own seed, He weights times ExactGain of Config.Graph.
	Exact
	// Approx: own seed, He weights times ApproxGain(Config.NEstimate,
	// Config.Family).
	Approx
	// CommonSeed: every node draws the same He weights from
	// Config.CommonSeed, no gain (the coordinated baseline: aggregation
	// then leaves the initial parameters unchanged).
	CommonSeed
)

var modeNames = map[Mode]string{Independent: "independent", Exact: "exact", Approx: "approx", CommonSeed: "common-seed"}

func (m Mode) String() string {
	if s, ok := modeNames[m]; ok {
		return s
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode reads a Mode by its String name.
func ParseMode(s string) (Mode, error) {
	for m, name := range modeNames {
		if name == s {
			return m, nil
		}
	}
	return 0, errorf("init mode %q, want independent, exact, approx or common-seed", s)
}

// Config selects an initialisation mode and what it needs.
type Config struct {
	Mode Mode
	// Graph is the communication graph, for Exact (connected).
	Graph *topology.Graph
	// NEstimate (say, from PushSum) and Family are for Approx.
	NEstimate float64
	Family    Family
	// CommonSeed is the seed every node shares, for CommonSeed.
	CommonSeed uint64
}

// Gain returns the scalar by which a node multiplies its He weights: 1
// for Independent and CommonSeed, 1/‖v_steady‖ (exact or approximate)
// otherwise.
func (c Config) Gain() (float64, error) {
	switch c.Mode {
	case Independent, CommonSeed:
		return 1, nil
	case Exact:
		return ExactGain(c.Graph)
	case Approx:
		return ApproxGain(c.NEstimate, c.Family)
	}
	return 0, errorf("unknown init mode %v", c.Mode)
}

// InitSeed returns the seed of a node's initialisation generator: the
// shared CommonSeed in mode CommonSeed, the node's own seed otherwise.
func (c Config) InitSeed(own uint64) uint64 {
	if c.Mode == CommonSeed {
		return c.CommonSeed
	}
	return own
}

// Gains returns the per-layer gain for nn's init hook: its type is
// nn.Gain's underlying type, so it can be passed to Model.Init directly.
// The paper scales every parameterised layer by the same 1/‖v_steady‖
// (the compression factor does not depend on the layer's σ_init), so the
// function is constant; biases start at 0 and are unaffected.
func Gains(c Config) (func(paramLayer int) float32, error) {
	g, err := c.Gain()
	if err != nil {
		return nil, err
	}
	if g > math.MaxFloat32 {
		return nil, errorf("gain %v overflows float32", g)
	}
	g32 := float32(g)
	return func(int) float32 { return g32 }, nil
}
