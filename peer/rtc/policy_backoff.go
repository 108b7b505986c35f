package rtc

import (
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Back-off: a failed attempt to reach a peer blocks the next for
// RetryBackoff, doubling per failure up to MaxRetryBackoff; a peer quiet
// for MaxRetryBackoff after its last wait ends starts over (Tick).

// backingOff reports whether attempts to peer wait at now.
func (p *policy) backingOff(peer ident.Peer, now time.Time) bool {
	b, ok := p.backoff[peer]
	return ok && now.Before(b.until)
}

// BackoffUntil returns when attempts to peer may start again (zero: now).
func (p *policy) BackoffUntil(peer ident.Peer) time.Time { return p.backoff[peer].until }

// backOff records a failed attempt to peer at now.
func (p *policy) backOff(peer ident.Peer, now time.Time) {
	b := p.backoff[peer]
	b.wait = min(max(2*b.wait, p.cfg.RetryBackoff), p.cfg.MaxRetryBackoff)
	b.until = now.Add(b.wait)
	remember(p.backoff, peer, b, p.cfg.Remember, func(b backoff) time.Time { return b.until })
}
