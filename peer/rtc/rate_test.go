package rtc

import (
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// A peer sending validly signed frames faster than its budget gets them
// refused before their signature is checked, and a flood ends in a ban;
// a peer within the budget is never refused.
func TestFrameFloodIsRateLimitedAndBanned(t *testing.T) {
	m, clock, _ := newShellWith(t, 1, func(c *Config) {
		c.MaxFrameRate, c.FrameBurst = 100, 200
		c.MaxStrikes, c.BanTime = 50, time.Minute
	})
	peer, other := testIdentity(t, 2), testIdentity(t, 3)
	m.SetNeighbors([]ident.Peer{peer.ID()})
	c := openLink(t, m, peer, clock.Now())
	// A result for no transfer: a valid frame that asks for nothing.
	valid := func(seq uint64) []byte {
		return signedFrame(t, peer, m.ID(), KindResult, seq, MarshalResult(Result{Transfer: 1, Code: ResultOK}))
	}
	seq := uint64(0)
	// At the budget's rate, for two seconds: nothing refused.
	for range 200 {
		seq++
		m.onMessage(c, valid(seq))
		clock.advance(10 * time.Millisecond)
	}
	if s := m.Stats(); s.RateLimited != 0 || s.Malformed != 0 || s.Replayed != 0 {
		t.Fatalf("refused within the budget: %+v", s)
	}
	// A burst: the bucket (full again) admits 200 more, then refuses.
	for range 200 {
		seq++
		m.onMessage(c, valid(seq))
	}
	if s := m.Stats(); s.RateLimited != 0 {
		t.Fatalf("refused within the burst: %d", s.RateLimited)
	}
	// Over the budget, even badly signed frames are refused for their
	// rate, unverified: no bad signature is counted.
	for range 49 {
		seq++
		m.onMessage(c, signedFrame(t, other, m.ID(), KindResult, seq, MarshalResult(Result{Transfer: 1, Code: ResultOK})))
	}
	if s := m.Stats(); s.RateLimited != 49 || s.BadSignature != 0 || s.Bans != 0 {
		t.Fatalf("over the budget: %+v", s)
	}
	if !slices.Contains(m.Peers(), peer.ID()) {
		t.Fatal("banned before MaxStrikes")
	}
	seq++
	m.onMessage(c, valid(seq))
	if s := m.Stats(); s.RateLimited != 50 || s.Bans != 1 || slices.Contains(m.Peers(), peer.ID()) {
		t.Fatalf("not banned after MaxStrikes frames over the budget: %+v", s)
	}
}
