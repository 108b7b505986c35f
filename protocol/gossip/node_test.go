package gossip

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func id(b byte) ident.Peer { return ident.Peer{b, 0x60} }

func node(t *testing.T, b byte, period int, seed uint64) *Node {
	t.Helper()
	c := DefaultConfig()
	c.ID, c.Arch, c.NumParams, c.Period = id(b), "m", 2, period
	n, err := NewNode(c, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func model(from, to byte, age uint64, p ...float32) Message {
	return Message{Type: MsgModel, From: id(from), To: id(to), Age: age, Arch: "m", NumParams: 2, Params: p}
}

// Hand-computed merge-then-update sequence at one node.
func TestNodeMergeAndUpdate(t *testing.T) {
	b := node(t, 2, 10, 1)
	if err := b.Init([]float32{4, 4}); err != nil {
		t.Fatal(err)
	}
	// Own age 0 against age 10: the received model wins outright.
	if err := b.Step(model(1, 2, 10, 0, 2)); err != nil {
		t.Fatal(err)
	}
	rd := b.Ready()
	if rd.Update == nil || rd.Update.Age != 10 || rd.Update.From != id(1) {
		t.Fatalf("update %+v", rd.Update)
	}
	near(t, rd.Update.Params, 0, 2)
	if err := b.ReportTrained([]float32{1, 1}, 5); err != nil {
		t.Fatal(err)
	}
	if p, age := b.Model(); age != 15 || p[0] != 1 {
		t.Fatalf("after update: %v age %d, want age 10+5", p, age)
	}
	// (15*1 + 5*16)/20 = 4.75, (15*1 + 5*-3)/20 = 0; age max(15, 5).
	b.Step(model(3, 2, 5, 16, -3)) //nolint:errcheck
	rd = b.Ready()
	near(t, rd.Update.Params, 4.75, 0)
	if rd.Update.Age != 15 {
		t.Fatalf("merged age %d", rd.Update.Age)
	}
	// Two arrivals during the update: the newer waits, the older is
	// replaced; ReportTrained merges the waiting one at once.
	b.Step(model(1, 2, 100, 9, 9)) //nolint:errcheck
	b.Step(model(3, 2, 20, 0, 0))  //nolint:errcheck
	if b.HasReady() || b.Stats().Replaced != 1 {
		t.Fatalf("busy node handed out work: %+v", b.Stats())
	}
	b.ReportTrained([]float32{2, 2}, 5) //nolint:errcheck // age 20
	rd = b.Ready()
	near(t, rd.Update.Params, 1, 1) // (20*2 + 20*0)/40
	if rd.Update.From != id(3) || rd.Update.Age != 20 {
		t.Fatalf("waiting merge %+v", rd.Update)
	}
	st := b.Stats()
	if st.Merges != 3 || st.Updates != 3 || st.Received != 4 || st.UpdateUnitsDone != 10 {
		t.Fatalf("stats %+v", st)
	}
	if err := b.ReportTrained([]float32{2}, 1); !errors.Is(err, ErrBadModel) {
		t.Fatalf("short report: %v", err)
	}
	b.ReportTrained([]float32{2, 2}, 1) //nolint:errcheck
	if err := b.ReportTrained([]float32{2, 2}, 1); !errors.Is(err, ErrNoUpdate) {
		t.Fatalf("report without update: %v", err)
	}
}

// A node without a model adopts the first one it receives.
func TestNodeAdopts(t *testing.T) {
	n := node(t, 5, 10, 1)
	n.Step(model(1, 5, 7, 3, 4)) //nolint:errcheck
	rd := n.Ready()
	near(t, rd.Update.Params, 3, 4)
	if rd.Update.Age != 7 || n.Stats().Adoptions != 1 {
		t.Fatalf("adoption %+v", rd.Update)
	}
}

// Sends go every Period ticks, after a random first phase, to peers drawn
// uniformly from the view.
func TestNodeSends(t *testing.T) {
	n := node(t, 9, 4, 3)
	n.SetPeers([]ident.Peer{id(1), id(2), id(3), id(4)}) //nolint:errcheck
	for range 4 {
		n.Tick()
	}
	if n.HasReady() || n.Stats().SkippedNoModel != 1 {
		t.Fatalf("sent without a model: %+v", n.Stats())
	}
	n.Init([]float32{1, 2}) //nolint:errcheck
	counts := map[byte]int{}
	var last int64 = -1
	const periods = 4000
	for tick := int64(5); tick < 5+4*periods; tick++ {
		n.Tick()
		rd := n.Ready()
		if len(rd.Messages) == 0 {
			continue
		}
		if last >= 0 && tick-last != 4 {
			t.Fatalf("sends %d ticks apart", tick-last)
		}
		last = tick
		m := rd.Messages[0]
		if m.Age != 0 || m.From != id(9) || m.Params[1] != 2 {
			t.Fatalf("message %+v", m)
		}
		counts[m.To[0]]++
	}
	for b := byte(1); b <= 4; b++ {
		if c := float64(counts[b]); math.Abs(c-periods/4) > 5*math.Sqrt(periods*0.25*0.75) {
			t.Errorf("peer %d got %v of %d", b, c, periods)
		}
	}
	if n.Stats().BytesSent != n.Stats().Sent*uint64(WireBytes(model(9, 1, 0, 1, 2))) {
		t.Fatalf("bytes %+v", n.Stats())
	}
}

func TestNodeRejects(t *testing.T) {
	n := node(t, 1, 3, 1)
	bad := []struct {
		m    Message
		want error
	}{
		{model(2, 3, 0, 1, 1), ErrNotForMe},
		{model(1, 1, 0, 1, 1), ErrNotForMe},
		{func() Message { m := model(2, 1, 0, 1, 1); m.Arch = "x"; return m }(), ErrBadModel},
		{model(2, 1, 0, 1), ErrBadModel},
		{model(2, 1, 0, 1, float32(math.NaN())), ErrBadModel},
		{model(2, 1, MaxAge+1, 1, 1), ErrField},
	}
	for i, c := range bad {
		if err := n.Step(c.m); !errors.Is(err, c.want) {
			t.Errorf("case %d: %v, want %v", i, err, c.want)
		}
	}
	if n.Stats().Rejected != uint64(len(bad)) {
		t.Fatalf("stats %+v", n.Stats())
	}
	for _, ids := range [][]ident.Peer{{id(1)}, {id(2), id(2)}, {{}}} {
		if err := n.SetPeers(ids); !errors.Is(err, ErrPeers) {
			t.Errorf("view %v: %v", ids, err)
		}
	}
	c := DefaultConfig()
	c.ID, c.Arch, c.NumParams = id(1), "m", 1
	if _, err := NewNode(c, nil); !errors.Is(err, ErrConfig) {
		t.Fatalf("nil rng: %v", err)
	}
	c.Period = 0
	if _, err := NewNode(c, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, ErrConfig) {
		t.Fatalf("period 0: %v", err)
	}
}
