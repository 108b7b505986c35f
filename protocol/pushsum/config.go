package pushsum

import (
	"fmt"

	"github.com/peerlearn/peerlearn/types/ident"
)

// MaxN bounds the network size an estimate may report (and so the mass
// a share may carry): estimates above it are clamped.
const MaxN = 1 << 20

// Config parameterises a Node.
type Config struct {
	// ID is the peer's own ID.
	ID ident.Peer
	// MinRounds is the fewest rounds (counted while the peer has
	// neighbours) before an estimate may count as converged: time for the
	// leader's ID to reach everyone and for the overlay to settle.
	MinRounds int
	// Window and Tol: the estimate has converged when its last Window
	// values stay within a relative spread Tol (max/min - 1 <= Tol).
	Window int
	Tol    float64
	// MaxRounds caps the estimation: a Node is Done after so many rounds
	// even if its estimate still moves (or it has none).
	MaxRounds int
	// Each neighbour has a budget of shares, a leaky bucket: Burst at
	// most, refilled by Rate every Tick; a share beyond it is refused
	// (ErrBudget). An honest neighbour sends one per its round; a loop
	// that ran late catches up with a burst of them.
	Rate, Burst int
}

// DefaultConfig returns the defaults for peer id: at the real peer's
// 100 ms tick, at least 5 s, at most 30 s.
func DefaultConfig(id ident.Peer) Config {
	return Config{ID: id, MinRounds: 50, Window: 20, Tol: 0.005, MaxRounds: 300, Rate: 2, Burst: 64}
}

// Validate reports the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.ID == (ident.Peer{}):
		return fmt.Errorf("%w: no ID", ErrConfig)
	case c.Window < 2 || c.MinRounds < c.Window || c.MaxRounds < c.MinRounds || c.MaxRounds > 1<<20:
		return fmt.Errorf("%w: Window %d, MinRounds %d, MaxRounds %d (want 2 <= Window <= MinRounds <= MaxRounds <= 2^20)", ErrConfig, c.Window, c.MinRounds, c.MaxRounds)
	case !(c.Tol > 0 && c.Tol < 1):
		return fmt.Errorf("%w: Tol %v", ErrConfig, c.Tol)
	case c.Rate < 1 || c.Burst < c.Rate:
		return fmt.Errorf("%w: Rate %d, Burst %d", ErrConfig, c.Rate, c.Burst)
	}
	return nil
}
