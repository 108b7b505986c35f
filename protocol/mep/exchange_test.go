package mep

import (
	"errors"
	"slices"
	"testing"
)

// Periods 4 and 6 (latency 1): pair period 6. Neither peer has a model at
// the first offer tick (1). Peer 1's first round (tick 4) is RoundInit and
// its model is offered at once; peer 2 holds its first round (due at 6)
// until that model has arrived (JoinWait) and adopts it at tick 8. From
// then on each offers once every pair period, at the earliest tick the
// pair period allows: peer 1 at 4, 10, ..., 58; peer 2 at 8, 14, ..., 56.
// Both retrain at least once a pair period, so every offer is needed and
// its model sent once.
func TestPairPeriodAndOneSendPerModel(t *testing.T) {
	h := newHarness(t, 1, 4, 6)
	h.link(1, 2)
	h.run(60)
	for _, c := range []struct {
		from, to int
		want     []int64
	}{
		{1, 2, []int64{4, 10, 16, 22, 28, 34, 40, 46, 52, 58}},
		{2, 1, []int64{8, 14, 20, 26, 32, 38, 44, 50, 56}},
	} {
		if got := h.ticks(MsgOffer, c.from, c.to); !slices.Equal(got, c.want) {
			t.Errorf("offers %d->%d at %v, want %v", c.from, c.to, got, c.want)
		}
		if got := h.count(MsgModel, c.from, c.to); got != len(c.want) {
			t.Errorf("models %d->%d: %d, want %d", c.from, c.to, got, len(c.want))
		}
	}
	if n := h.count(MsgHave, 0, 0); n != 0 {
		t.Errorf("%d MsgHave, want 0", n)
	}
	// Rounds every own period: peer 1 at 4, 8, ..., 60; peer 2 at 8, 14,
	// ..., 56.
	if a, b := h.roundAt[id(1)], h.roundAt[id(2)]; len(a) != 15 || len(b) != 9 || b[0] != 8 || b[8] != 56 {
		t.Errorf("rounds at %v and %v, want 15 from 4 and 9 from 8 to 56", a, b)
	}
	if k := h.rounds[id(1)][0].Kind; k != RoundInit {
		t.Errorf("first round %v, want RoundInit", k)
	}
	if k := h.rounds[id(2)][0].Kind; k != RoundAdopt {
		t.Errorf("peer 2's first round %v, want RoundAdopt", k)
	}
	last := h.rounds[id(1)][14]
	if last.Kind != RoundAggregate || len(last.Models) != 1 || last.Models[0].From != id(2) {
		t.Errorf("last round %+v", last)
	}
	for p, errs := range h.errs {
		t.Errorf("%v: step errors %v", p, errs)
	}
}

// A model that does not change is sent once; later pair periods skip the
// offer; a peer that forgot what its neighbour holds re-offers and gets
// MsgHave; a repeated MsgNeed does not resend.
func TestFingerprintsPreventDuplicateSends(t *testing.T) {
	h := newHarness(t, 1, 4, 6)
	h.train = func(p *Peer, r *Round) {
		if r.Kind != RoundInit {
			p.AbortRound() // no new model: the fingerprint stays
			return
		}
		if _, err := p.ReportTrained([]float32{1, 2, 3}, nil); err != nil {
			t.Fatal(err)
		}
	}
	h.link(1, 2)
	h.run(60)
	if o, m := h.count(MsgOffer, 1, 2), h.count(MsgModel, 1, 2); o != 1 || m != 1 {
		t.Fatalf("1->2: %d offers, %d models; want 1 and 1", o, m)
	}
	if s := h.peers[0].Stats().OffersSkipped; s != 9 { // ticks 10, 16, ..., 58
		t.Errorf("offers skipped %d, want 9", s)
	}

	// Peer 1 drops and re-adds peer 2 (peer 2 does not notice): it
	// re-offers on the next tick, peer 2 still holds that fingerprint.
	a := h.peers[0]
	if err := a.SetNeighbors(nil); err != nil {
		t.Fatal(err)
	}
	if err := a.SetNeighbors([]Neighbor{{ID: id(2), Period: 6}}); err != nil {
		t.Fatal(err)
	}
	h.run(5)
	if o, hv, m := h.count(MsgOffer, 1, 2), h.count(MsgHave, 2, 1), h.count(MsgModel, 1, 2); o != 2 || hv != 1 || m != 1 {
		t.Fatalf("after re-add: %d offers, %d haves, %d models; want 2, 1, 1", o, hv, m)
	}

	// A duplicate MsgNeed for the model peer 2 holds is ignored.
	_, fp := a.Model()
	if err := a.Step(Message{Type: MsgNeed, From: id(2), Version: 1, Fingerprint: fp}); err != nil {
		t.Fatal(err)
	}
	if rd := a.Ready(); len(rd.Messages) != 0 || a.Stats().DuplicateNeeds != 1 {
		t.Fatalf("duplicate need: %v, stats %+v", rd.Messages, a.Stats())
	}
}

// A lost model is reported; the next pair period offers and sends again.
func TestSendFailedResends(t *testing.T) {
	h := newHarness(t, 1, 4, 6)
	lost := false
	h.drop = func(m Message) bool {
		if m.Type == MsgModel && m.From == id(1) && !lost {
			lost = true
			h.peers[0].ReportSendFailed(m.To, m.Fingerprint)
			return true
		}
		return false
	}
	h.link(1, 2)
	h.run(15)
	// Offer at 4, model lost at 6; offer at 10 (one pair period later),
	// model sent at 12.
	if got := h.ticks(MsgModel, 1, 2); !slices.Equal(got, []int64{6, 12}) {
		t.Fatalf("models 1->2 at %v, want [6 12]", got)
	}
	if s := h.peers[0].Stats().SendsFailed; s != 1 {
		t.Fatalf("sends failed %d", s)
	}
}

// Line 1-2-3 rewired to 1-3 (2 keeps only 3): peer 1 forgets 2's model,
// drops 2's messages, offers to 3 at once and aggregates 3's model only.
func TestNeighbourSetChange(t *testing.T) {
	h := newHarness(t, 1, 5, 5, 5)
	h.link(1, 2)
	h.link(2, 3)
	h.run(30)
	if r := h.rounds[id(1)]; len(r[len(r)-1].Models) != 1 || r[len(r)-1].Models[0].From != id(2) {
		t.Fatalf("before: %+v", r[len(r)-1])
	}
	p1, p2, p3 := h.peers[0], h.peers[1], h.peers[2]
	mustSet := func(p *Peer, ns ...Neighbor) {
		if err := p.SetNeighbors(ns); err != nil {
			t.Fatal(err)
		}
	}
	mustSet(p1, Neighbor{ID: id(3), Period: 5})
	mustSet(p2, Neighbor{ID: id(3), Period: 5})
	mustSet(p3, Neighbor{ID: id(1), Period: 5}, Neighbor{ID: id(2), Period: 5})
	before := len(h.rounds[id(1)])
	h.run(30)
	if got := h.ticks(MsgOffer, 1, 3); len(got) == 0 || got[0] != 31 {
		t.Fatalf("offers 1->3 at %v, want the first at 31", got)
	}
	for _, r := range h.rounds[id(1)][before:] {
		for _, m := range r.Models {
			if m.From != id(3) {
				t.Fatalf("round %d of peer 1 uses %v's model", r.Seq, m.From)
			}
		}
	}
	if r := h.rounds[id(1)]; len(r[len(r)-1].Models) != 1 {
		t.Fatalf("after: last round has %d models, want 1 (peer 3)", len(r[len(r)-1].Models))
	}
	if err := p1.Step(Message{Type: MsgOffer, From: id(2), Version: 9, Fingerprint: Fingerprint{1}}); !errors.Is(err, ErrNotNeighbor) {
		t.Fatalf("offer from old neighbour: %v, want ErrNotNeighbor", err)
	}
}

// Pair period shrinks when the neighbour's period does.
func TestPeriodChangeReschedules(t *testing.T) {
	p, _ := New(testConfig(1, 4))
	if err := p.SetNeighbors([]Neighbor{{ID: id(2), Period: 20}}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.ReportTrained([]float32{1, 2, 3}, nil); err != nil {
		t.Fatal(err)
	}
	var offers []int64
	tick := func(n int) {
		for range n {
			p.Tick()
			for _, m := range p.Ready().Messages {
				if m.Type == MsgOffer {
					offers = append(offers, p.Now())
					// Answer so the model counts as held, then publish anew.
					if err := p.Step(Message{Type: MsgHave, From: id(2), Version: m.Version, Fingerprint: m.Fingerprint}); err != nil {
						t.Fatal(err)
					}
					if _, err := p.ReportTrained([]float32{float32(p.Now()), 0, 0}, nil); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	tick(25) // offers at 1 and 21 (pair period 20)
	if err := p.SetNeighbors([]Neighbor{{ID: id(2), Period: 8}}); err != nil {
		t.Fatal(err)
	}
	tick(20) // next offer no later than 25+8 = 33, then every 8: 33, 41
	if want := []int64{1, 21, 33, 41}; !slices.Equal(offers, want) {
		t.Fatalf("offers at %v, want %v", offers, want)
	}
}
