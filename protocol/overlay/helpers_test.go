package overlay

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func testConfig(spaces int, seed uint64) Config {
	c := DefaultConfig()
	c.Spaces = spaces
	c.Rand = rand.New(rand.NewPCG(seed, 0))
	return c
}

// pump is a zero-latency in-order network for unit tests: Flush moves
// every node's Ready into a queue and delivers it; drop filters messages.
type pump struct {
	t     *testing.T
	nodes map[ident.Peer]*Node
	order []ident.Peer
	drop  func(m Message) bool
	got   map[ident.Peer][]Delivery
}

func newPump(t *testing.T, spaces int, names ...string) (*pump, []ident.Peer) {
	p := &pump{t: t, nodes: map[ident.Peer]*Node{}, got: map[ident.Peer][]Delivery{}}
	ids := make([]ident.Peer, len(names))
	for k, name := range names {
		id := ident.PeerFromPublicKey([]byte(name))
		n, err := NewNode(id, testConfig(spaces, uint64(k)))
		if err != nil {
			t.Fatal(err)
		}
		p.nodes[id] = n
		p.order = append(p.order, id)
		ids[k] = id
	}
	return p, ids
}

// settle delivers messages until none are left (bounded).
func (p *pump) settle() {
	p.t.Helper()
	for range 10000 {
		var queue []Message
		for _, id := range p.order {
			n := p.nodes[id]
			rd := n.Ready()
			queue = append(queue, rd.Messages...)
			p.got[id] = append(p.got[id], rd.Delivered...)
			n.Advance()
		}
		if len(queue) == 0 {
			return
		}
		for _, m := range queue {
			if p.drop != nil && p.drop(m) {
				continue
			}
			to := p.nodes[m.To]
			if to == nil || to.Left() {
				continue
			}
			// Through the codec, as on a real network.
			b, err := Marshal(m)
			if err != nil {
				p.t.Fatal(err)
			}
			if err := Receive(to, b); err != nil {
				p.t.Fatalf("%v: %v", m, err)
			}
		}
	}
	p.t.Fatal("messages never settled")
}

// tick ticks every node that has not left k times, settling after each.
func (p *pump) tick(k int) {
	for range k {
		for _, id := range p.order {
			p.nodes[id].Tick()
		}
		p.settle()
	}
}

func (p *pump) tables() map[ident.Peer]Table {
	t := map[ident.Peer]Table{}
	for id, n := range p.nodes {
		if !n.Left() {
			t[id] = n.Table()
		}
	}
	return t
}

func (p *pump) requireCorrect() {
	p.t.Helper()
	if c := Check(p.tables(), p.nodes[p.order[0]].Spaces()); !c.OK() {
		p.t.Fatalf("not correct: %+v\n%v", c, p.describe())
	}
}

func (p *pump) describe() string {
	s := ""
	for _, id := range p.order {
		s += fmt.Sprintf("%v: %v\n", id, p.nodes[id].Table())
	}
	return s
}
