package rtc

import (
	"fmt"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Strikes and bans. Every frame of a peer's that the shell refuses (bad
// signature, replay, malformed, over budget) is a strike; MaxStrikes of
// them within StrikeWindow ban the peer for BanTime: its link is dropped
// (causeBanned), its offers are refused (ErrBanned) and no connection to
// it is started until the ban ends. An honest peer's refusals (a frame
// reordered past the replay window, a stale offer) are a handful an
// hour, far under the bound. Both maps are bounded like every memory of
// the policy's (expired on Tick, at most Remember entries).

type strikeCount struct {
	n     int
	since time.Time // the window's start
}

// Strike counts one refused frame from peer at now and reports whether
// it banned the peer.
func (p *policy) Strike(peer ident.Peer, now time.Time) bool {
	if p.cfg.MaxStrikes < 1 || p.Banned(peer, now) {
		return false
	}
	s := p.strikes[peer]
	if s.n == 0 || now.Sub(s.since) > p.cfg.StrikeWindow {
		s = strikeCount{since: now}
	}
	s.n++
	if s.n < p.cfg.MaxStrikes {
		remember(p.strikes, peer, s, p.cfg.Remember, func(s strikeCount) time.Time { return s.since.Add(p.cfg.StrikeWindow) })
		return false
	}
	delete(p.strikes, peer)
	remember(p.bans, peer, now.Add(p.cfg.BanTime), p.cfg.Remember, func(t time.Time) time.Time { return t })
	p.bansTotal++
	if l := p.links[peer]; l != nil {
		p.drop(l, causeBanned, fmt.Sprintf("%d refused frames in %v", s.n, now.Sub(s.since).Round(time.Millisecond)), now)
	}
	return true
}

// Banned reports whether peer is banned at now.
func (p *policy) Banned(peer ident.Peer, now time.Time) bool {
	until, ok := p.bans[peer]
	return ok && now.Before(until)
}

// forgetStrikes expires strike windows and bans (Tick).
func (p *policy) forgetStrikes(now time.Time) {
	forget(p.strikes, now, func(s strikeCount) time.Time { return s.since.Add(p.cfg.StrikeWindow) })
	forget(p.bans, now, func(t time.Time) time.Time { return t })
}

// checkBanned refuses peer while it is banned.
func (p *policy) checkBanned(peer ident.Peer, now time.Time) error {
	if p.Banned(peer, now) {
		return fmt.Errorf("%w: %v for another %v", ErrBanned, peer, p.bans[peer].Sub(now))
	}
	return nil
}
