package mep

import (
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The test harness wires peers in-process: every tick it ticks each peer,
// delivers the messages that are due (after a round trip through the
// codec, as a transport would do), and serves each Ready: messages are
// queued with the harness latency, rounds are handled by train.

const testParams = 3

func id(b byte) ident.Peer { return ident.Peer{b} }

func testConfig(b byte, period int) Config {
	c := DefaultConfig()
	c.ID = id(b)
	c.Task = ident.Task{0xee}
	c.Arch = "mlp-3"
	c.NumParams = testParams
	c.Period = period
	c.DataSize = 10
	return c
}

type flight struct {
	at int64
	m  Message
}

type harness struct {
	t        *testing.T
	peers    []*Peer
	byID     map[ident.Peer]*Peer
	latency  int64
	now      int64
	inflight []flight
	sent     []Message               // every message emitted, in order
	sentAt   []int64                 // the tick each was emitted
	roundAt  map[ident.Peer][]int64  // the tick of each round, per peer
	rounds   map[ident.Peer][]Round  // every round emitted, per peer
	errs     map[ident.Peer][]error  // Step errors, per receiver
	train    func(p *Peer, r *Round) // serves a round; default meanTrain
	drop     func(m Message) bool    // drops a message in transit
}

// newHarness builds peers with the given periods, IDs 1, 2, ...
func newHarness(t *testing.T, latency int64, periods ...int) *harness {
	h := &harness{t: t, byID: map[ident.Peer]*Peer{}, latency: latency,
		rounds: map[ident.Peer][]Round{}, roundAt: map[ident.Peer][]int64{}, errs: map[ident.Peer][]error{}}
	h.train = h.meanTrain
	for i, per := range periods {
		p, err := New(testConfig(byte(i+1), per))
		if err != nil {
			t.Fatal(err)
		}
		h.peers = append(h.peers, p)
		h.byID[p.cfg.ID] = p
	}
	return h
}

// link makes the listed peers (1-based) each other's neighbours, keeping
// existing neighbours.
func (h *harness) link(a, b int) {
	for _, pair := range [][2]int{{a, b}, {b, a}} {
		p, q := h.peers[pair[0]-1], h.peers[pair[1]-1]
		ns := append(p.Neighbors(), Neighbor{ID: q.cfg.ID, Period: q.cfg.Period})
		if err := p.SetNeighbors(ns); err != nil {
			h.t.Fatal(err)
		}
	}
}

// run advances n ticks.
func (h *harness) run(n int) {
	for range n {
		h.now++
		for _, p := range h.peers {
			p.Tick()
		}
		var due []flight
		rest := make([]flight, 0, len(h.inflight))
		for _, f := range h.inflight {
			if f.at <= h.now {
				due = append(due, f)
			} else {
				rest = append(rest, f)
			}
		}
		h.inflight = rest
		for _, f := range due {
			if err := h.byID[f.m.To].Step(f.m); err != nil {
				h.errs[f.m.To] = append(h.errs[f.m.To], err)
			}
		}
		h.collect()
	}
}

// collect serves every peer's Ready.
func (h *harness) collect() {
	for _, p := range h.peers {
		for p.HasReady() {
			rd := p.Ready()
			for _, m := range rd.Messages {
				h.sent = append(h.sent, m)
				h.sentAt = append(h.sentAt, h.now)
				if h.drop != nil && h.drop(m) {
					continue
				}
				b, err := Encode(m)
				if err != nil {
					h.t.Fatalf("encode %v: %v", m.Type, err)
				}
				d, err := Decode(b)
				if err != nil {
					h.t.Fatalf("decode %v: %v", m.Type, err)
				}
				d.To, d.Params, d.Hessian = m.To, m.Params, m.Hessian
				h.inflight = append(h.inflight, flight{at: h.now + h.latency, m: d})
			}
			if rd.Round != nil {
				h.rounds[p.cfg.ID] = append(h.rounds[p.cfg.ID], *rd.Round)
				h.roundAt[p.cfg.ID] = append(h.roundAt[p.cfg.ID], h.now)
				h.train(p, rd.Round)
			}
		}
	}
}

// meanTrain aggregates with the plain mean (or starts from [id, id, id]
// in a RoundInit), "trains" by adding 1 and publishes.
func (h *harness) meanTrain(p *Peer, r *Round) {
	out := make([]float32, testParams)
	if self, others, ok := r.Inputs(); ok {
		rep, err := aggregate.Mean{}.Aggregate(self, others, out)
		if err != nil || rep.Refused != nil {
			h.t.Fatalf("aggregate: %v %+v", err, rep)
		}
	} else {
		for i := range out {
			out[i] = float32(p.cfg.ID[0])
		}
	}
	for i := range out {
		out[i]++
	}
	if _, err := p.ReportTrained(out, nil); err != nil {
		h.t.Fatal(err)
	}
}

// ticks lists the ticks at which messages of type t went from a to b.
func (h *harness) ticks(t MsgType, a, b int) []int64 {
	var at []int64
	for i, m := range h.sent {
		if m.Type == t && m.From == id(byte(a)) && m.To == id(byte(b)) {
			at = append(at, h.sentAt[i])
		}
	}
	return at
}

// count counts emitted messages of type t from peer a to peer b (1-based;
// 0 matches any).
func (h *harness) count(t MsgType, a, b int) int {
	n := 0
	for _, m := range h.sent {
		if m.Type == t && (a == 0 || m.From == id(byte(a))) && (b == 0 || m.To == id(byte(b))) {
			n++
		}
	}
	return n
}
