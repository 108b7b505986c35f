package rtc

import (
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Crumbs and next hops of routed signalling (see route.go for the rules).

// Crumb records that signalling from origin arrived through the open
// neighbour via: signalling for origin is routed back that way for
// CrumbTTL. The shell calls it for the overlay's routed messages
// (NoteRoute) and for envelopes passing by, the latter only once the
// session inside verified as origin's: an unverified envelope must not
// steer our routes.
func (p *policy) Crumb(origin, via ident.Peer, now time.Time) {
	if origin == via || origin == p.self || via == p.self || !p.Open(via) || !p.routes(via) {
		return
	}
	remember(p.crumbs, origin, crumb{via: via, until: now.Add(p.cfg.CrumbTTL)}, p.cfg.Remember,
		func(c crumb) time.Time { return c.until })
}

// NextHop chooses the next hop of an envelope for target that has taken
// path (ending with this peer) and arrived from from (zero at its
// origin), with source route back; it returns the hop (zero if none) and
// the source route left after it.
func (p *policy) NextHop(target ident.Peer, back, path []ident.Peer, from ident.Peer, now time.Time) (ident.Peer, []ident.Peer) {
	if p.Open(target) {
		return target, nil
	}
	if len(back) > 0 && p.Open(back[0]) && p.routes(back[0]) && !slices.Contains(path, back[0]) {
		return back[0], back[1:]
	}
	if cr, ok := p.crumbs[target]; ok && now.Before(cr.until) && p.Open(cr.via) && p.routes(cr.via) && !slices.Contains(path, cr.via) {
		return cr.via, nil
	}
	var best ident.Peer
	bs := ^uint64(0)
	for id, l := range p.links {
		if !l.open || id == from || slices.Contains(path, id) || !p.routes(id) {
			continue
		}
		if s := p.score(id, target); s < bs || s == bs && id.Less(best) {
			best, bs = id, s
		}
	}
	return best, nil
}

// score is the routing distance from peer a to target t: the smallest
// circular distance between their coordinates over the ring spaces.
func (p *policy) score(a, t ident.Peer) uint64 {
	best := ^uint64(0)
	for s := range p.cfg.Spaces {
		best = min(best, overlay.CircularDistance(overlay.Coordinate(a, s), overlay.Coordinate(t, s)))
	}
	return best
}
