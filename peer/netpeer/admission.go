package netpeer

import (
	"bytes"
	"fmt"
	"math"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// adoptAdmission turns on admitted placement (types/admission,
// overlay/records.go) with the token of the peer's first welcome, unless
// Config.PlainPlacement: the node is rebuilt with the token's coordinates
// (nothing has used it yet: Run calls this before joining), and every
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
	node, err := overlay.NewNode(p.id, p.cfg.Overlay)
	if err != nil {
		return fmt.Errorf("%w: admitted node: %w", ErrConfig, err)
	}
	p.node = node
	p.logf("admitted for epoch %d (proof of work %d bits)", tok.Epoch, w.Task.PoWBits())
	return nil
}

// checkToken takes the token of a later registration: a renewal of ours
// (the same place, a later epoch: admission.Issuer.Renew) replaces it, so
// that newcomers of the later epoch accept this peer's record; another
// token (another server key, or ours had lapsed) is noted and the node
// keeps the place it has, where peers that cannot verify its token will
// refuse it.
func (p *Peer) checkToken(c *signal.Client) {
	if p.cfg.PlainPlacement {
		return
	}
	raw, _ := c.Token()
	if bytes.Equal(raw, p.cfg.Signal.Token) {
		return
	}
	tok, err := admission.Unmarshal(raw)
	if err == nil {
		err = p.node.RenewRecord(tok)
	}
	if err != nil {
		p.logf("the signalling server issued another admission token; keeping the first (its place): %v", err)
		return
	}
	p.cfg.Signal.Token = raw
	p.logf("admission renewed for epoch %d (the same place)", tok.Epoch)
}

// renewBefore is how long before its token expires a peer registers
// again to have it renewed: half the default epoch, so a renewal that
// fails (no server answers) is tried again many times before the end.
const renewBefore = admission.DefaultEpoch / 2

// renewalDue reports whether the peer's token expires within
// renewBefore of now.
func (p *Peer) renewalDue(now time.Time) bool {
	if p.cfg.PlainPlacement || p.cfg.Overlay.Admission == nil {
		return false
	}
	tok, err := admission.Unmarshal(p.cfg.Signal.Token)
	return err == nil && tokenDue(tok.NotAfter, now)
}

// tokenDue reports whether a token valid until the unix second notAfter
// is due for renewal at now.
func tokenDue(notAfter int64, now time.Time) bool {
	return time.Unix(notAfter, 0).Sub(now) < renewBefore
}

// placement returns the coordinates of this peer and its neighbours.
func (p *Peer) placement() map[string][]float64 {
	ids := append([]ident.Peer{p.id}, p.node.Neighbors()...)
	out := make(map[string][]float64, len(ids))
	for _, id := range ids {
		cs, ok := p.node.Coordinates(id)
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
