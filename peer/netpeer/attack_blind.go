//go:build attack

package netpeer

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	tailored "github.com/peerlearn/peerlearn/engine/attack" // AGR-tailored search
	"github.com/peerlearn/peerlearn/protocol/mep"
)

// blindStandIns is how many of its own earlier models the blind
// attacker keeps to stand in for the receiver's honest neighbours.
const blindStandIns = 4

// The attacker logs its first blindLogFirst adaptive models and then
// every blindLogEvery-th (the end-to-end test reads the lines; on two
// loaded cores it published a model every 7 s or so).
const (
	blindLogFirst = 3
	blindLogEvery = 10
)

// blindAttack is PEERLEARN_ATTACK's adaptive=blind: it remembers the
// attacker's own last models (by version) and, once per version, runs
// engine/attack.Blind against clipped-fedlay's defaults.
type blindAttack struct {
	mu      sync.Mutex
	rule    aggregate.Aggregator
	tol     float64
	dir     []float32   // drawn once, from the sender's ID
	history [][]float32 // own honest models, oldest first, at most blindStandIns+1
	version uint64      // of the last entry of history
	last    []float32   // the attack model for version
	models  int         // adaptive models made
}

func newBlindAttack() (*blindAttack, error) {
	rule, err := aggregate.New(aggregate.SafeDefault)
	if err != nil {
		return nil, err
	}
	return &blindAttack{rule: rule, tol: aggregate.DefaultReputationConfig().Tolerance}, nil
}

// model returns the model to send in place of m's (m.Params, the
// sender's honest model, is not modified): the search's, or the honest
// one while there is no earlier model to measure the scale by.
func (b *blindAttack) model(m *mep.Message) []float32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.history) > 0 && m.Version == b.version && b.last != nil {
		return b.last
	}
	if len(b.history) > 0 && len(b.history[0]) != len(m.Params) {
		b.history, b.dir = nil, nil // another architecture: start over
	}
	if b.dir == nil {
		rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(m.From[:8]), binary.LittleEndian.Uint64(m.From[8:16])))
		b.dir = make([]float32, len(m.Params))
		for i := range b.dir {
			b.dir[i] = float32(rng.NormFloat64())
		}
	}
	own := slices.Clone(m.Params)
	b.history = append(b.history, own)
	if len(b.history) > blindStandIns+1 {
		b.history = b.history[1:]
	}
	b.version, b.last = m.Version, nil
	if len(b.history) < 2 {
		return m.Params
	}
	earlier := b.history[:len(b.history)-1]
	self := aggregate.Contribution{From: m.From, Arch: m.Model.Arch, Params: own,
		DataSize: int(min(m.Model.DataSize, 1<<30)), Period: int(m.Model.Period), DataConf: m.Model.DataConf,
		Origin: earlier[len(earlier)-1]}
	out, gamma, ok := tailored.Blind(b.rule, b.tol, self, earlier, b.dir)
	if !ok {
		return m.Params
	}
	if b.models < blindLogFirst || b.models%blindLogEvery == 0 {
		fmt.Fprintf(os.Stderr, "attack: adaptive-blind model %d (version %d): gamma %.4f of at most %d\n",
			b.models, m.Version, gamma, tailored.MaxGamma)
	}
	b.models++
	b.last = out
	return out
}
