package mep

import (
	"errors"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// modelMsg is peer from's model version v with parameters params.
func modelMsg(from byte, v uint64, params ...float32) Message {
	return Message{
		Type: MsgModel, From: id(from), Version: v, Fingerprint: FingerprintOf(params, nil),
		Model: ModelHeader{Task: ident.Task{0xee}, Arch: "mlp-3", NumParams: uint32(len(params)),
			DataSize: 7, Period: 5, DataConf: 0.5},
		Params: params,
	}
}

func lonePeer(t *testing.T) *Peer {
	t.Helper()
	p, err := New(testConfig(1, 5))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetNeighbors([]Neighbor{{ID: id(2), Period: 5}}); err != nil {
		t.Fatal(err)
	}
	return p
}

// firstRound ticks p until its round comes out.
func firstRound(t *testing.T, p *Peer) *Round {
	t.Helper()
	for range 100 {
		p.Tick()
		if r := p.Ready().Round; r != nil {
			return r
		}
	}
	t.Fatal("no round")
	return nil
}

// Versions 2, 1, 3 arrive in that order: 1 is stale, 3 replaces 2; an
// offer of 2 is then answered MsgHave, an offer of 4 MsgNeed.
func TestFreshestModelKept(t *testing.T) {
	p := lonePeer(t)
	for _, m := range []Message{modelMsg(2, 2, 2, 2, 2), modelMsg(2, 1, 1, 1, 1), modelMsg(2, 3, 3, 3, 3)} {
		if err := p.Step(m); err != nil {
			t.Fatal(err)
		}
	}
	if s := p.Stats(); s.ModelsReceived != 2 || s.ModelsStale != 1 {
		t.Fatalf("stats %+v", s)
	}
	for _, m := range []Message{
		{Type: MsgOffer, From: id(2), Version: 2, Fingerprint: FingerprintOf([]float32{2, 2, 2}, nil)},
		{Type: MsgOffer, From: id(2), Version: 4, Fingerprint: Fingerprint{4}},
	} {
		if err := p.Step(m); err != nil {
			t.Fatal(err)
		}
	}
	msgs := p.Ready().Messages
	if len(msgs) != 2 || msgs[0].Type != MsgHave || msgs[1].Type != MsgNeed || msgs[1].To != id(2) {
		t.Fatalf("replies %+v", msgs)
	}
	r := firstRound(t, p)
	if r.Kind != RoundAdopt || len(r.Models) != 1 {
		t.Fatalf("round %+v", r)
	}
	m := r.Models[0]
	if m.From != id(2) || m.Params[0] != 3 || m.DataSize != 7 || m.Period != 5 || m.DataConf != 0.5 || m.Arch != "mlp-3" {
		t.Fatalf("model %+v", m)
	}
	self, others, ok := r.Inputs()
	if !ok || self.From != id(2) || len(others) != 0 {
		t.Fatalf("adopt inputs %v %v %v", self.From, others, ok)
	}
}

func TestModelRefused(t *testing.T) {
	p := lonePeer(t)
	bad := func(f func(*Message)) Message {
		m := modelMsg(2, 1, 1, 2, 3)
		f(&m)
		return m
	}
	cases := map[string]Message{
		"task":        bad(func(m *Message) { m.Model.Task = ident.Task{1} }),
		"arch":        bad(func(m *Message) { m.Model.Arch = "cnn" }),
		"length":      bad(func(m *Message) { m.Params = m.Params[:2] }),
		"header":      bad(func(m *Message) { m.Model.NumParams = 4 }),
		"fingerprint": bad(func(m *Message) { m.Params = []float32{1, 2, 4} }),
		"hessian":     bad(func(m *Message) { m.Model.HasHessian = true }),
		"hessian len": bad(func(m *Message) { m.Model.HasHessian, m.Hessian = true, []float32{1} }),
	}
	for name, m := range cases {
		if err := p.Step(m); !errors.Is(err, ErrBadModel) {
			t.Errorf("%s: %v, want ErrBadModel", name, err)
		}
	}
	if n := p.Stats().ModelsRejected; n != uint64(len(cases)) {
		t.Errorf("rejected %d", n)
	}
	withH := modelMsg(2, 1, 1, 2, 3)
	withH.Hessian, withH.Model.HasHessian = []float32{0, 1, 0}, true
	withH.Fingerprint = FingerprintOf(withH.Params, withH.Hessian)
	if err := p.Step(withH); err != nil {
		t.Fatalf("model with Hessian: %v", err)
	}
	if err := p.Step(modelMsg(3, 1, 1, 2, 3)); !errors.Is(err, ErrNotNeighbor) {
		t.Errorf("stranger: %v", err)
	}
	m := modelMsg(2, 2, 1, 2, 3)
	m.To = id(9)
	if err := p.Step(m); !errors.Is(err, ErrNotForMe) {
		t.Errorf("misaddressed: %v", err)
	}
	if err := p.Step(Message{Type: MsgOffer, From: id(2)}); !errors.Is(err, ErrField) {
		t.Errorf("version 0 offer: %v", err)
	}
	if _, err := p.ReportTrained([]float32{1}, nil); !errors.Is(err, ErrBadReport) {
		t.Errorf("short report: %v", err)
	}
	if _, err := p.ReportTrained([]float32{1, 2, 3}, []float32{1}); !errors.Is(err, ErrBadReport) {
		t.Errorf("short Hessian: %v", err)
	}
}

// Peer 4 joins a running 3-peer ring at tick 20 next to peers 1 and 2.
// They offer on their next tick (21); with latency 1 the models arrive by
// 24, before peer 4's first round (its tick 5 = 25), which adopts them.
// With latency 3 they arrive at 30: the round waits for them (ticks
// 25..30) and then adopts both.
func TestLateJoinerAdopts(t *testing.T) {
	for _, c := range []struct {
		latency int64
		at      int64 // global tick of peer 4's first round
		delayed uint64
	}{{1, 25, 0}, {3, 31, 6}} {
		h := newHarness(t, c.latency, 5, 5, 5)
		h.link(1, 2)
		h.link(2, 3)
		h.link(3, 1)
		h.run(20)
		for i := range 3 {
			if k := h.rounds[id(byte(i+1))][0].Kind; k != RoundInit {
				t.Fatalf("fresh network: first round %v, want RoundInit", k)
			}
		}
		p4, err := New(testConfig(4, 5))
		if err != nil {
			t.Fatal(err)
		}
		h.peers = append(h.peers, p4)
		h.byID[p4.cfg.ID] = p4
		h.link(4, 1)
		h.link(4, 2)
		h.run(20)
		rs := h.rounds[id(4)]
		if len(rs) == 0 {
			t.Fatalf("latency %d: no round", c.latency)
		}
		r := rs[0]
		if r.Kind != RoundAdopt || len(r.Models) != 2 || r.Models[0].From != id(1) || r.Models[1].From != id(2) {
			t.Fatalf("latency %d: first round %+v", c.latency, r)
		}
		if s, at := p4.Stats(), h.roundAt[id(4)][0]; s.RoundsDelayed != c.delayed || at != c.at {
			t.Fatalf("latency %d: round at %d, delayed %d; want %d, %d", c.latency, at, s.RoundsDelayed, c.at, c.delayed)
		}
		if n := h.count(MsgOffer, 4, 0); n == 0 {
			t.Fatalf("latency %d: joiner never offered its trained model", c.latency)
		}
	}
}

// The period a model is aggregated with is the longer of the claimed one
// and the interval measured between the neighbour's models: a claim of
// 5 with models 12 ticks apart counts as 12; models 3 ticks apart keep
// the claim.
func TestObservedPeriod(t *testing.T) {
	p := lonePeer(t)
	period := func() int { return p.nbrs[id(2)].model.Period }
	if err := p.Step(modelMsg(2, 1, 1, 1, 1)); err != nil {
		t.Fatal(err)
	}
	if got := period(); got != 5 {
		t.Fatalf("first model: period %d, want the claimed 5", got)
	}
	for range 12 {
		p.Tick()
	}
	if err := p.Step(modelMsg(2, 2, 2, 2, 2)); err != nil {
		t.Fatal(err)
	}
	if got := period(); got != 12 {
		t.Fatalf("models 12 ticks apart: period %d, want 12", got)
	}
	for range 3 {
		p.Tick()
	}
	if err := p.Step(modelMsg(2, 3, 3, 3, 3)); err != nil {
		t.Fatal(err)
	}
	if got := period(); got != 5 {
		t.Fatalf("models 3 ticks apart: period %d, want the claimed 5", got)
	}
	// A liar claiming period 1 and sending every 12 ticks counts as 12.
	for range 12 {
		p.Tick()
	}
	m := modelMsg(2, 4, 4, 4, 4)
	m.Model.Period = 1
	if err := p.Step(m); err != nil {
		t.Fatal(err)
	}
	if got := period(); got != 12 {
		t.Fatalf("liar claiming 1, 12 ticks apart: period %d, want 12", got)
	}
}
