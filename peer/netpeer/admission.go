package netpeer

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// adoptAdmission turns on admitted placement (types/admission,
// overlay/records.go) with the token of the peer's first welcome, unless
// Config.PlainPlacement: the peer core's overlay node is built with the token's coordinates
// (Run calls this before it builds the peer core), and every
// later registration presents the token, so that the peer keeps its place
// and costs no new admission. A server that issues no token is refused.
func (p *Peer) adoptAdmission(c *signal.Client) error {
	if p.cfg.PlainPlacement {
		return nil
	}
	raw, key := c.Token()
	if len(raw) == 0 || key == nil {
		return fmt.Errorf("%w: the signalling server issued no admission token", ErrBootstrap)
	}
	tok, err := admission.Unmarshal(raw) // the client verified it
	if err != nil {
		return fmt.Errorf("%w: admission token: %w", ErrBootstrap, err)
	}
	w := c.Welcome()
	p.cfg.Overlay.Admission = &overlay.Admission{
		Policy: admission.Policy{ServerKey: key, Task: p.cfg.Task, PoWBits: w.Task.PoWBits()},
		Self:   tok,
	}
	p.cfg.Signal.Token = raw
	p.logf("admitted for epoch %d (proof of work %d bits)", tok.Epoch, w.Task.PoWBits())
	return nil
}

// placement returns the coordinates of this peer and its neighbours.
func (p *Peer) placement() map[string][]float64 {
	ids := append([]ident.Peer{p.id}, p.n.Neighbors()...)
	out := make(map[string][]float64, len(ids))
	for _, id := range ids {
		cs, ok := p.n.Coordinates(id)
		if !ok {
			continue
		}
		f := make([]float64, len(cs))
		for i, c := range cs {
			f[i] = c.Float()
		}
		out[hexID(id)] = f
	}
	return out
}

// PlacementOf returns the placement the peers of sts report for
// themselves, for computing the correct overlay of their IDs
// (overlay.ExpectedTablesAt): each peer's own coordinates, and what its
// neighbours report for IDs that report nothing themselves;
// overlay.Coordinate for an ID nobody places. Coordinates pass through
// float64, which keeps their order but for ties 2^-53 apart.
func PlacementOf(sts []Status) func(ident.Peer, int) overlay.Coord {
	known := map[string][]float64{}
	for _, s := range sts {
		for id, cs := range s.Placement {
			if _, ok := known[id]; !ok || id == s.ID {
				known[id] = cs
			}
		}
	}
	return PlacementFrom(known)
}

// PlacementFrom is PlacementOf for a map of hex ID -> coordinates.
func PlacementFrom(known map[string][]float64) func(ident.Peer, int) overlay.Coord {
	return func(id ident.Peer, space int) overlay.Coord {
		if cs := known[hexID(id)]; space < len(cs) {
			if v := math.Ldexp(cs[space], 64); v < math.Ldexp(1, 64) {
				return overlay.Coord(v)
			}
			return overlay.Coord(math.MaxUint64)
		}
		return overlay.Coordinate(id, space)
	}
}

// admittedToken is the token the peer presents under admitted placement
// (nil under plain placement), for the peer core's renewals.
func (p *Peer) admittedToken() []byte {
	if p.cfg.PlainPlacement || p.cfg.Overlay.Admission == nil {
		return nil
	}
	return p.cfg.Signal.Token
}
