package method

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/protocol/gossip"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A Gossip core done with its trainings keeps its last trained model:
// the model that waited through that training and every later arrival
// are counted as stale and not merged, while the final model still goes
// out every period.
func TestGossipDoneModelIsFinal(t *testing.T) {
	newCore := func(id byte, init []float32, maxRounds int) *Gossip {
		g, err := NewGossip(gossip.Config{ID: pid(id), Arch: "t", NumParams: 2, Period: 2}, rand.New(rand.NewPCG(1, uint64(id))), init, maxRounds)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.SetPeers([]ident.Peer{pid(3 - id)}); err != nil {
			t.Fatal(err)
		}
		return g
	}
	a, b := newCore(1, []float32{0, 0}, 1), newCore(2, []float32{4, 8}, 0)
	// nextSend ticks b until it sends its model to a.
	nextSend := func() Send {
		for range 10 {
			b.Tick()
			for b.HasReady() {
				if rd := b.Ready(); len(rd.Sends) > 0 {
					return rd.Sends[0]
				}
			}
		}
		t.Fatal("b sent nothing in 10 ticks")
		return Send{}
	}
	step := func(s Send) {
		t.Helper()
		if err := a.Step(pid(2), s.Header, s.Params); err != nil {
			t.Fatal(err)
		}
	}
	step(nextSend())
	rd := a.Ready()
	if rd.Train == nil {
		t.Fatal("no training for the first model")
	}
	step(nextSend()) // arrives during a's only training: waits
	trained := []float32{1, 2}
	if err := a.Trained(slices.Clone(trained), 10); err != nil {
		t.Fatal(err)
	}
	for a.HasReady() {
		if rd := a.Ready(); rd.Train != nil {
			t.Fatalf("a done core asked for a training: %+v", rd.Train)
		}
	}
	step(nextSend()) // arrives once done
	if a.HasReady() {
		t.Fatalf("a late model made work: %+v", a.Ready())
	}
	if got := a.Model(); !slices.Equal(got, trained) {
		t.Errorf("model %v after the last training %v", got, trained)
	}
	st := a.Status()
	if st.Role != "done" || st.Round != 1 || st.Stale != 2 || st.ModelsReceived != 3 {
		t.Errorf("status %+v: want done after 1 round, 3 models received, 2 stale", st)
	}
	var sent []Send
	for range 4 {
		a.Tick()
		for a.HasReady() {
			sent = append(sent, a.Ready().Sends...)
		}
	}
	if len(sent) == 0 {
		t.Fatal("a done core stopped sending its model")
	}
	for _, s := range sent {
		m, err := gossip.Decode(s.Header)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.Params, trained) || m.Age < 10 {
			t.Errorf("sent %v of age %d, want the final model %v (age at least its training's 10)", s.Params, m.Age, trained)
		}
	}
}
