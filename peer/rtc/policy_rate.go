package rtc

import (
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Frame rate. A peer's signed control frames pass a token bucket before
// their signature is checked: an ed25519 verification costs tens of
// microseconds, so a peer sending valid (or merely well-formed) frames
// as fast as its link allows would keep a core busy, and a tab has one.
// Each peer may send FrameRate frames a second with bursts of FrameBurst;
// a frame over the budget is refused unverified and is a strike, so a
// flood ends in a ban (policy_strikes.go). Honest traffic on a link is a
// few frames a second (heartbeats, MEP offers, a manifest and a result
// per model) and bursts of tens when many newcomers are signalled through
// one neighbour at once, far under the defaults. Chunks are not counted
// here: they carry no signature and the transfer budgets bound them.
// The buckets are bounded like every memory of the policy's: a bucket
// is forgotten once it would be full again.

type bucket struct {
	tokens float64
	at     time.Time // when tokens was last brought up to date
}

// full returns when b holds FrameBurst tokens again.
func (p *policy) full(b bucket) time.Time {
	missing := float64(p.cfg.FrameBurst) - b.tokens
	return b.at.Add(time.Duration(missing / p.cfg.FrameRate * float64(time.Second)))
}

// AdmitFrame takes one token from peer's bucket at now and reports
// whether there was one; always true when FrameRate is 0 (no budget).
func (p *policy) AdmitFrame(peer ident.Peer, now time.Time) bool {
	if p.cfg.FrameRate <= 0 {
		return true
	}
	b, ok := p.buckets[peer]
	if !ok {
		b = bucket{tokens: float64(p.cfg.FrameBurst), at: now}
	}
	if dt := now.Sub(b.at); dt > 0 {
		b.tokens = min(float64(p.cfg.FrameBurst), b.tokens+dt.Seconds()*p.cfg.FrameRate)
		b.at = now
	}
	admit := b.tokens >= 1
	if admit {
		b.tokens--
	}
	remember(p.buckets, peer, b, p.cfg.Remember, p.full)
	return admit
}

// forgetBuckets drops the buckets that are full again (Tick).
func (p *policy) forgetBuckets(now time.Time) {
	if p.cfg.FrameRate > 0 {
		forget(p.buckets, now, p.full)
	}
}
