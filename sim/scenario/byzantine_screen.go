package scenario

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"strings"
	"sync"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/sim/dflsim"
)

// screenSuffix names a lab rule whose honest peers run peer/learn's loss
// screen (learn.ScreenConfig, the defaults: a neighbour whose loss on
// our data exceeds twice the closed neighbourhood's median plus 0.1 is
// refused) in front of the rule: "clipped-fedlay+screen", with the
// drift test "clipped-fedlay+drift+screen", with the neighbourhood check
// "clipped-fedlay+screen+health". Models are scored on the first
// healthSamples of the peer's shard, as the check scores them. The
// adaptive attackers search against it (dflsim rebuilds the receiver's
// rule with its screen and its data: full knowledge).
const screenSuffix = "+screen"

// screenOutSuffix is screenSuffix with learn.ScreenConfig.LeaveOut: a
// screened model is left out of the round, uncharged, instead of refused
// ("clipped-fedlay+screenout").
const screenOutSuffix = "+screenout"

// splitScreen returns the lab rule name without its screen suffix (and
// without "+health", which the caller took first) and the screen its
// honest peers run (Loss nil: none; the caller sets it per peer).
func splitScreen(rule string) (base string, screen learn.ScreenConfig, on bool) {
	screen = learn.ScreenConfig{Factor: learn.DefaultScreenFactor, Margin: learn.DefaultScreenMargin}
	if base, ok := strings.CutSuffix(rule, screenOutSuffix); ok {
		screen.LeaveOut = true
		return base, screen, true
	}
	if base, ok := strings.CutSuffix(rule, screenSuffix); ok {
		return base, screen, true
	}
	return rule, learn.ScreenConfig{}, false
}

// screenPopulation makes pop's honest peers (byz[i] false) run the
// screen cfg, scoring on their shards, and returns what gives the
// scores their data once pop is built (before the first round).
func screenPopulation(pop *dflsim.Population, cfg learn.ScreenConfig, byz []bool) func(*dflsim.Built) {
	local := make([]*data.Dataset, len(byz))
	edit := pop.Edit
	pop.Edit = func(i int, c *learn.Config) {
		if edit != nil {
			edit(i, c)
		}
		if !byz[i] {
			c.Screen = cfg
			c.Screen.Loss = screenLoss(c.Arch, &local[i])
		}
	}
	return func(b *dflsim.Built) { copy(local, b.Local) }
}

// screenLoss returns a learn.ScreenConfig.Loss for one peer: the loss of
// params on the first healthSamples of *local (set once the population
// is built, before the first round). Losses are kept per model
// (an FNV-1a hash of its parameters; at most screenCache of them, then
// forgotten): the attackers' search asks for the same honest models'
// losses at every step of its bisection. Safe for concurrent use.
func screenLoss(arch nn.Arch, local **data.Dataset) func([]float32) (float64, error) {
	var mu sync.Mutex
	var ev *learn.Evaluator
	cache := map[uint64]float64{}
	return func(params []float32) (float64, error) {
		key := paramsHash(params)
		mu.Lock()
		defer mu.Unlock()
		if l, ok := cache[key]; ok {
			return l, nil
		}
		if ev == nil {
			var err error
			if ev, err = learn.NewEvaluator(arch); err != nil {
				return 0, err
			}
		}
		x, y := dflsim.Head(*local, healthSamples)
		m, err := ev.Evaluate(params, x, y)
		if err != nil {
			return 0, err
		}
		if len(cache) >= screenCache {
			clear(cache)
		}
		cache[key] = m.Loss
		return m.Loss, nil
	}
}

// screenCache bounds a peer's kept losses: a round's neighbours and the
// attackers' trial models.
const screenCache = 256

// paramsHash is FNV-1a over the parameters' bits and their count.
func paramsHash(params []float32) uint64 {
	h := fnv.New64a()
	var b [4]byte
	for _, v := range params {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		h.Write(b[:])
	}
	binary.LittleEndian.PutUint32(b[:], uint32(len(params)))
	h.Write(b[:])
	return h.Sum64()
}
