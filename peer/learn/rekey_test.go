package learn

import (
	"errors"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// A peer that moves to a new place (a captured neighbourhood) takes a new
// ID between rounds: refused during a round and for the zero ID; after
// it the peer has its model, round and counters, sends under the new ID,
// and its neighbours, linked to the new ID, hear its models and it
// theirs: its rounds go on from where they were.
func TestRekey(t *testing.T) {
	tk := newTask(t, 3, 64, 7)
	peers := newPeers(t, tk, nil)
	net := newAsyncNet(t, peers, [][]int{{1, 2}, {0, 2}, {0, 1}})
	p := peers[0]
	for i := 0; i < 200 && (p.Metrics().Rounds < 3 || !p.Busy()); i++ {
		net.run(1)
	}
	if !p.Busy() {
		t.Fatal("peer 0 never busy")
	}
	newID := ident.PeerFromPublicKey([]byte("moved"))
	if err := p.Rekey(newID); !errors.Is(err, ErrBusy) {
		t.Fatalf("Rekey during a round: %v, want ErrBusy", err)
	}
	for i := 0; i < 200 && p.Busy(); i++ {
		net.run(1)
	}
	if err := p.Rekey(ident.Peer{}); !errors.Is(err, ErrConfig) {
		t.Fatalf("Rekey to the zero ID: %v, want ErrConfig", err)
	}
	before, model, oldID := p.Metrics(), slices.Clone(p.Published()), p.Config().ID
	if err := p.Rekey(newID); err != nil {
		t.Fatal(err)
	}
	after := p.Metrics()
	if p.Config().ID != newID || after.Rounds != before.Rounds || after.ModelsSent != before.ModelsSent ||
		after.ModelsReceived != before.ModelsReceived || !slices.Equal(p.Published(), model) {
		t.Fatalf("after Rekey: ID %v, metrics %+v (before %+v), model kept %v", p.Config().ID, after, before, slices.Equal(p.Published(), model))
	}
	if c, ok := p.Contribution(); !ok || c.From != newID {
		t.Fatalf("contribution from %v, want %v", c.From, newID)
	}
	// The overlay gives the new ID to the neighbours; what was in flight
	// to the old one is lost, as on a real network.
	delete(net.index, oldID)
	net.index[newID] = 0
	net.inTransit = nil
	net.link(0, []int{1, 2})
	net.link(1, []int{0, 2})
	net.link(2, []int{0, 1})
	heard := peers[1].Metrics().ModelsReceived
	for i := 0; i < 400 && p.Metrics().Rounds < before.Rounds+3; i++ {
		net.run(1)
	}
	if r := p.Metrics().Rounds; r < before.Rounds+3 || peers[1].Metrics().ModelsReceived <= heard || p.Metrics().ModelsReceived <= before.ModelsReceived {
		t.Fatalf("after the move: %d rounds (from %d), peer 1 heard %d models (from %d), peer 0 %d (from %d)",
			r, before.Rounds, peers[1].Metrics().ModelsReceived, heard, p.Metrics().ModelsReceived, before.ModelsReceived)
	}
	t.Logf("rounds %d -> %d; peer 1 heard %d models -> %d", before.Rounds, p.Metrics().Rounds, heard, peers[1].Metrics().ModelsReceived)
	if net.stepErrs != 0 {
		t.Errorf("%d messages refused", net.stepErrs)
	}
}
