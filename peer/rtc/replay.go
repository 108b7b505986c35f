package rtc

import (
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// ReplayWindow is the number of sequence numbers below the highest seen
// that may still arrive (once each). A browser delivers data channel
// messages on one goroutine each (pion's GOOS=js OnMessage), so frames of
// one ordered channel can reach the handler slightly out of order; a
// strict "greater than the last" rule would refuse them.
const ReplayWindow = 1024

// replayWindow tracks the control sequence numbers seen from one peer:
// a frame is fresh if its number is above the highest seen, or within
// ReplayWindow below it and not seen yet. Anything else is a replay.
// Not safe for concurrent use.
type replayWindow struct {
	top  uint64 // highest accepted; valid once any is set
	any  bool
	bits [ReplayWindow / 64]uint64 // bit (top - seq) set: seq seen
}

// accept records seq and reports whether it was fresh.
func (w *replayWindow) accept(seq uint64) bool {
	if !w.any {
		w.any, w.top = true, seq
		w.bits = [ReplayWindow / 64]uint64{}
		w.bits[0] = 1
		return true
	}
	if seq > w.top {
		w.shift(seq - w.top)
		w.top = seq
		w.bits[0] |= 1
		return true
	}
	d := w.top - seq
	if d >= ReplayWindow {
		return false
	}
	word, bit := d/64, d%64
	if w.bits[word]&(1<<bit) != 0 {
		return false
	}
	w.bits[word] |= 1 << bit
	return true
}

// shift moves the window up by n: bit k becomes bit k+n.
func (w *replayWindow) shift(n uint64) {
	if n >= ReplayWindow {
		w.bits = [ReplayWindow / 64]uint64{}
		return
	}
	words, bits := int(n/64), n%64
	for i := len(w.bits) - 1; i >= 0; i-- {
		var v uint64
		if j := i - words; j >= 0 {
			v = w.bits[j] << bits
			if bits > 0 && j-1 >= 0 {
				v |= w.bits[j-1] >> (64 - bits)
			}
		}
		w.bits[i] = v
	}
}

// replayState is a peer's replay window, kept while the peer has a link
// and for SessionMaxAge after (so frames of a connection are not taken
// again by the next one opened soon after); idleSince is when its last
// link ended (zero while it has one).
type replayState struct {
	w         replayWindow
	idleSince time.Time
}

// Fresh records control sequence number seq from peer and reports
// whether it was fresh (not a replay). The shell calls it only for
// frames that verified as peer's.
func (p *policy) Fresh(peer ident.Peer, seq uint64, now time.Time) bool {
	r := p.replay[peer]
	if r == nil {
		r = &replayState{}
		if p.links[peer] == nil {
			r.idleSince = now // a frame of a link dropped meanwhile
		}
		p.replay[peer] = r
	}
	return r.w.accept(seq)
}

// forgetReplay drops the windows idle for SessionMaxAge, and the longest
// idle beyond maxRemembered idle ones.
func (p *policy) forgetReplay(now time.Time) {
	var idle []ident.Peer
	for id, r := range p.replay {
		switch {
		case p.links[id] != nil:
		case r.idleSince.IsZero():
			r.idleSince = now
			idle = append(idle, id)
		case now.Sub(r.idleSince) > p.cfg.SessionMaxAge:
			delete(p.replay, id)
		default:
			idle = append(idle, id)
		}
	}
	if extra := len(idle) - p.cfg.Remember; extra > 0 {
		slices.SortFunc(idle, func(a, b ident.Peer) int { return p.replay[a].idleSince.Compare(p.replay[b].idleSince) })
		for _, id := range idle[:extra] {
			delete(p.replay, id)
		}
	}
}
