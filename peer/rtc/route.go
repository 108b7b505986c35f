package rtc

import (
	"fmt"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Routed signalling. A peer that wants a connection to a peer it has no
// channel to sends its signed offer in an Envelope hop by hop over open
// data channels; every hop appends itself to the Path and picks the next:
//
//  1. the target itself, if connected;
//  2. else the next hop of the envelope's source route (Back), if
//     connected: an answer retraces its offer's path;
//  3. else the neighbour the target was last heard through (a crumb:
//     NoteRoute, and the origins of envelopes passing by whose sessions
//     verified as theirs), unless already
//     on the path: this reaches a joining peer whose only connection is
//     its bootstrap contact, along the path its Discover came;
//  4. else greedily the connected peer, not already on the path, whose
//     coordinate is closest to the target's in any ring space (the
//     overlay's greedy routing restricted to open channels: in a correct
//     overlay the target's ring neighbours are connected to it).
//
// The path (at most RouteTTL hops) keeps it loop-free. Why not the
// overlay's own Route: the overlay picks its next hop from its neighbour
// table, which holds the peers it has just adopted; routing an offer to
// such a peer would pick that very peer as the next hop, which has no
// channel yet: the offer would wait for the connection it is to create.
//
// The choice is the policy's (policy_route.go); this file is the shell's
// part: verifying, framing and sending envelopes.

// forward sends e one hop further from this peer (its origin, or a hop
// it arrived at from from).
func (m *Manager) forward(e Envelope, from ident.Peer) (next ident.Peer, err error) {
	if len(e.Path) >= m.cfg.RouteTTL {
		m.count(func(s *Stats) { s.SignalsDropped++ })
		return next, fmt.Errorf("%w: signalling for %v dropped after %d hops", ErrUnreachable, e.Target, len(e.Path))
	}
	e.Path = append(slices.Clone(e.Path), m.self)
	var back []ident.Peer
	m.step(func(p *policy, now time.Time) { next, back = p.NextHop(e.Target, e.Back, e.Path, from, now) })
	if next == (ident.Peer{}) {
		m.count(func(s *Stats) { s.SignalsDropped++ })
		return next, fmt.Errorf("%w: no route towards %v", ErrUnreachable, e.Target)
	}
	e.Back = back
	payload, err := MarshalEnvelope(e)
	if err != nil {
		return next, err
	}
	frame, err := m.control(next, KindSignal, payload)
	if err != nil {
		return next, err
	}
	// Unordered, as overlay frames: an envelope stands alone, and behind
	// model chunks on a slow, lossy link it took longer than a connection
	// may (ConnectTimeout).
	if err := m.sendFrame(next, frame, false, true); err != nil {
		m.count(func(s *Stats) { s.SignalsDropped++ })
		return next, err
	}
	if e.Origin != m.self {
		m.count(func(s *Stats) { s.SignalsForwarded++ })
	}
	return next, nil
}

// onEnvelope handles routed signalling that arrived from neighbour from:
// deliver it here or pass it on.
func (m *Manager) onEnvelope(e Envelope, from ident.Peer) {
	// Every hop verifies the session inside before the envelope may
	// leave a crumb or go further: a forged one must not steer routes.
	s, err := DecodeSession(e.Body)
	if err == nil && s.From != e.Origin {
		err = fmt.Errorf("%w: envelope from %v holds a session signed by %v", ErrBadSignature, e.Origin, s.From)
	}
	if err != nil {
		m.count(func(st *Stats) { st.SessionsRefused++ })
		m.errorStat(err)
		m.logf("signalling from %v: %v", e.Origin, err)
		return
	}
	m.step(func(p *policy, now time.Time) { p.Crumb(e.Origin, from, now) })
	if e.Target != m.self {
		if _, err := m.forward(e, from); err != nil {
			m.logf("signalling from %v to %v: %v", e.Origin, e.Target, err)
		}
		return
	}
	m.count(func(s *Stats) { s.SignalsDelivered++ })
	m.onSession(s, e.Path, false)
}
