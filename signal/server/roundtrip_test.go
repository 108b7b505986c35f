package server

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Four peers join one task: the first gets no contacts, later ones get up
// to three live peers; a new peer and its contact exchange offer, answer
// and candidates through the server until the new peer reports
// 'connected', after which the server relays no more between them.
func TestRegisterWelcomeRelayRoundTrip(t *testing.T) {
	ts := startServer(t, func(c *Config) {
		c.ICEServers = []signal.ICEServer{{URLs: []string{"stun:127.0.0.1:3478"}}}
	})
	ctx := context.Background()

	a := dial(t, ts, 1)
	if w := a.Welcome(); len(w.Contacts) != 0 || w.Task.Name != "test" || len(w.ICEServers) != 1 || w.BootstrapMS != 5000 {
		t.Fatalf("first welcome: %+v", w)
	}
	b := dial(t, ts, 2)
	if got := b.Welcome().Contacts; !slices.Equal(got, []ident.Peer{a.ID()}) {
		t.Fatalf("second peer's contacts %v, want [%v]", got, a.ID())
	}

	// b (new) offers to a (its contact); a answers; b sends a candidate.
	if err := b.Send(ctx, a.ID(), signal.RelayOffer, `{"type":"offer","sdp":"v=0 b"}`); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, a)
	if ev.Relay == nil || ev.Relay.From != b.ID() || ev.Relay.To != a.ID() || ev.Relay.Kind != signal.RelayOffer || ev.Relay.Data != `{"type":"offer","sdp":"v=0 b"}` {
		t.Fatalf("a got %+v", ev)
	}
	if err := a.Send(ctx, b.ID(), signal.RelayAnswer, `{"type":"answer","sdp":"v=0 a"}`); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, b); ev.Relay == nil || ev.Relay.From != a.ID() || ev.Relay.Kind != signal.RelayAnswer {
		t.Fatalf("b got %+v", ev)
	}
	if err := b.Send(ctx, a.ID(), signal.RelayCandidate, `{"candidate":"candidate:1 1 udp 1 127.0.0.1 5000 typ host"}`); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, a); ev.Relay == nil || ev.Relay.Kind != signal.RelayCandidate {
		t.Fatalf("a got %+v", ev)
	}

	// c and d: contacts are distinct live peers of the task, not self.
	c := dial(t, ts, 3)
	d := dial(t, ts, 4)
	for _, cl := range []*signal.Client{c, d} {
		w := cl.Welcome()
		want := min(3, ts.Stats().Peers[ts.tid]-1)
		if len(w.Contacts) < 2 || len(w.Contacts) > want || slices.Contains(w.Contacts, cl.ID()) {
			t.Fatalf("contacts of %v: %v", cl.ID(), w.Contacts)
		}
	}
	if got := d.Welcome().Contacts; len(got) != 3 {
		t.Fatalf("fourth peer got %d contacts, want 3", len(got))
	}

	// b reports its connection: the window closes both ways.
	if err := b.Connected(ctx, a.ID()); err != nil {
		t.Fatal(err)
	}
	if err := b.Send(ctx, a.ID(), signal.RelayCandidate, `{"candidate":"late"}`); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, b, signal.CodeNotAllowed)
	if err := a.Send(ctx, b.ID(), signal.RelayCandidate, `{"candidate":"late"}`); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, a, signal.CodeNotAllowed)

	st := ts.Stats()
	if st.Peers[ts.tid] != 4 || st.Registrations != 4 || st.RelayedTotal() != 3 || st.Refusals[signal.CodeNotAllowed] != 2 {
		t.Fatalf("stats %+v", st)
	}
	if st.Relayed[signal.RelayOffer] != 1 || st.Relayed[signal.RelayAnswer] != 1 || st.Relayed[signal.RelayCandidate] != 1 {
		t.Fatalf("relayed by kind %v", st.Relayed)
	}

	// Close says bye: the peer leaves the task.
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(d.Err(), signal.ErrClosed) {
		t.Fatalf("closed client's Err %v", d.Err())
	}
	eventually(t, "d to leave", func() bool { return ts.Stats().Peers[ts.tid] == 3 })
	if err := d.Send(ctx, a.ID(), signal.RelayOffer, "x"); !errors.Is(err, signal.ErrClosed) {
		t.Fatalf("send after close: %v", err)
	}
}

// Relays are refused between peers that are not a new peer and one of its
// contacts, after the bootstrap window times out, and to peers that left.
func TestRelayRules(t *testing.T) {
	ts := startServer(t, func(c *Config) {
		c.Contacts = 1
		c.BootstrapTimeout = 400 * time.Millisecond
	})
	ctx := context.Background()
	a := dial(t, ts, 1) // first: established
	b := dial(t, ts, 2) // contacts [a]
	c := dial(t, ts, 3) // contacts [a]: established peers first
	if !slices.Equal(c.Welcome().Contacts, []ident.Peer{a.ID()}) {
		t.Fatalf("c's contacts %v", c.Welcome().Contacts)
	}
	// b and c are both new, but not each other's contacts.
	if err := b.Send(ctx, c.ID(), signal.RelayOffer, "offer"); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, b, signal.CodeNotAllowed)
	// To oneself.
	if err := b.Send(ctx, b.ID(), signal.RelayOffer, "offer"); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, b, signal.CodeNotAllowed)
	// A contact may start the exchange towards the new peer.
	if err := a.Send(ctx, c.ID(), signal.RelayOffer, "offer from a"); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, c); ev.Relay == nil || ev.Relay.From != a.ID() {
		t.Fatalf("c got %+v", ev)
	}
	// The contact leaves: relays to it are refused as unknown.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a to leave", func() bool { return ts.Stats().Peers[ts.tid] == 2 })
	if err := c.Send(ctx, a.ID(), signal.RelayAnswer, "answer"); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, c, signal.CodeUnknownPeer)
	// After the window: refused.
	d := dial(t, ts, 4) // contacts: one of b, c
	contact := d.Welcome().Contacts[0]
	eventually(t, "the window to close", func() bool {
		return ts.windowClosed(d.ID())
	})
	if err := d.Send(ctx, contact, signal.RelayOffer, "offer"); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, d, signal.CodeNotAllowed)
	if n := ts.Stats().Refusals[signal.CodeNotAllowed]; n != 3 {
		t.Fatalf("%d not-allowed refusals, want 3", n)
	}
}

// windowClosed reports whether peer's bootstrap window has passed.
func (s *Server) windowClosed(peer ident.Peer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.peers[peer]
	return p != nil && !p.windowEnd.IsZero() && !time.Now().Before(p.windowEnd)
}
