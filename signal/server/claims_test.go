package server

import (
	"context"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// establishedPeer reports whether peer's session is established.
func (s *Server) establishedPeer(peer ident.Peer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.peers[peer]
	return p != nil && p.established
}

// connectThroughServer plays an honest bootstrap between newcomer n and
// its contact c: offer, answer, and both sides' "connected" reports, the
// contact's first when confirmFirst.
func connectThroughServer(t *testing.T, ts *testServer, n, c *signal.Client, confirmFirst bool) {
	t.Helper()
	ctx := context.Background()
	if err := n.Send(ctx, c.ID(), signal.RelayOffer, "offer"); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, c)
	if err := c.Send(ctx, n.ID(), signal.RelayAnswer, "answer"); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, n)
	claim := func() {
		if err := n.Connected(ctx, c.ID()); err != nil {
			t.Fatal(err)
		}
	}
	confirm := func() {
		if err := c.Connected(ctx, n.ID()); err != nil {
			t.Fatal(err)
		}
	}
	if confirmFirst {
		confirm()
		claim()
	} else {
		claim()
		confirm()
	}
	eventually(t, "the confirmed claim", func() bool { return ts.establishedPeer(n.ID()) })
}

// Fakes that send signed offers with dead candidates: their honest
// contacts answer (any relayed offer is answered), the fakes claim a
// connection, and before, the server believed the claim on the strength
// of the answer (issue #27: 7 and 11 of 30 fakes became established and
// newcomers were handed 14 and 19 fakes out of 24). A claim now counts
// only when the contact confirms an open channel on its own session, so
// no fake is established, a fake's report about another fake is refused,
// and every newcomer gets the established honest peers, never a fake.
// Honest claims are confirmed whichever report comes first.
func TestDeadOfferFakesNeverEstablished(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.Contacts = 3 })
	ctx := context.Background()
	a := dial(t, ts, 1) // the task's first peer: established
	b := dial(t, ts, 2)
	c := dial(t, ts, 3)
	connectThroughServer(t, ts, b, a, false) // claim, then confirmation
	connectThroughServer(t, ts, c, a, true)  // confirmation, then claim
	honest := []ident.Peer{a.ID(), b.ID(), c.ID()}

	const fakes = 30
	var fakeIDs []ident.Peer
	for i := range fakes {
		f := dial(t, ts, byte(10+i))
		fakeIDs = append(fakeIDs, f.ID())
		for _, contact := range f.Welcome().Contacts {
			if !slices.Contains(honest, contact) {
				t.Fatalf("fake %d got contact %v, not an established honest peer", i, contact)
			}
		}
		// The fake offers (its only candidate dead); the honest contacts
		// answer, as they answer any relayed offer; nothing opens, so
		// they confirm nothing. The fake claims all the same.
		for _, contact := range f.Welcome().Contacts {
			if err := f.Send(ctx, contact, signal.RelayOffer, "offer, candidate 192.0.2.1:9"); err != nil {
				t.Fatal(err)
			}
		}
		for _, cl := range []*signal.Client{a, b, c} {
			if slices.Contains(f.Welcome().Contacts, cl.ID()) {
				if ev := nextEvent(t, cl); ev.Relay == nil || ev.Relay.From != f.ID() {
					t.Fatalf("contact got %+v, want the fake's offer", ev)
				}
				if err := cl.Send(ctx, f.ID(), signal.RelayAnswer, "answer"); err != nil {
					t.Fatal(err)
				}
			}
		}
		for range f.Welcome().Contacts {
			nextEvent(t, f) // the answers
		}
		for _, contact := range f.Welcome().Contacts {
			if err := f.Connected(ctx, contact); err != nil {
				t.Fatal(err)
			}
		}
		// A report about another fake is neither a claim nor a
		// confirmation: refused.
		if i > 0 {
			if err := f.Connected(ctx, fakeIDs[i-1]); err != nil {
				t.Fatal(err)
			}
			wantRefusal(t, f, signal.CodeNotAllowed)
		}
	}
	eventually(t, "every fake's claims counted", func() bool {
		return ts.Stats().Claims.Unconfirmed >= fakes*uint64(len(honest))
	})
	st := ts.Stats()
	if st.Established[ts.tid] != len(honest) || st.Claims.Confirmed != 2 || st.Claims.Confirmations != 2 || st.Claims.Refused != fakes-1 {
		t.Fatalf("established %d (want %d), claims %+v (want 2 confirmed, 2 confirmations, %d refused)",
			st.Established[ts.tid], len(honest), st.Claims, fakes-1)
	}
	for i, id := range fakeIDs {
		if ts.establishedPeer(id) {
			t.Fatalf("fake %d is established", i)
		}
	}
	// Newcomers are handed the established honest peers, never a fake
	// (without the claims' ranking, 30 of 33 peers would be fakes).
	newcomer := dial(t, ts, 200)
	got := newcomer.Welcome().Contacts
	slices.SortFunc(got, comparePeer)
	want := slices.Clone(honest)
	slices.SortFunc(want, comparePeer)
	if !slices.Equal(got, want) {
		t.Fatalf("the newcomer got contacts %v, want the honest %v", got, want)
	}
}

func comparePeer(a, b ident.Peer) int {
	switch {
	case a.Less(b):
		return -1
	case b.Less(a):
		return 1
	}
	return 0
}

// A fake that offers and claims at once closes its own window before its
// contact can answer: the contact's late answers are refused and counted,
// but are no strikes against it (issue #27's 30 fakes would otherwise
// have got an honest contact near MaxStrikes, and more of them would
// have had it disconnected).
func TestLateAnswerToAClosedWindowIsNoStrike(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxStrikes = 3 })
	ctx := context.Background()
	a := dial(t, ts, 1) // the first peer: the others' contact
	for i := range 5 {
		f := dial(t, ts, byte(10+i))
		if err := f.Send(ctx, a.ID(), signal.RelayOffer, "offer"); err != nil {
			t.Fatal(err)
		}
		if err := f.Connected(ctx, a.ID()); err != nil { // closes f's window
			t.Fatal(err)
		}
		nextEvent(t, a) // the offer
		eventually(t, "the fake's window to close", func() bool {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			return ts.peers[f.ID()].windowEnd.IsZero()
		})
		if err := a.Send(ctx, f.ID(), signal.RelayAnswer, "answer"); err != nil {
			t.Fatal(err)
		}
		wantRefusal(t, a, signal.CodeNotAllowed)
	}
	// Five refusals with MaxStrikes 3, and a is still connected.
	if err := a.Send(ctx, identity(t, 10).ID(), signal.RelayAnswer, "answer"); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, a, signal.CodeNotAllowed)
	if n := ts.Stats().Refusals[signal.CodeTooManyErrors]; n != 0 {
		t.Fatalf("the contact was disconnected for too many errors (%d)", n)
	}
}
