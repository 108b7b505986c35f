package learn

import (
	"testing"
)

// A peer that joins a trained network adopts its neighbours' models in
// its first round (no model of its own to average in) and starts close to
// their accuracy, far above a fresh model trained as long on its own data.
func TestLateJoinerCatchesUp(t *testing.T) {
	tk := newTask(t, 9, 120, 5)
	peers := newPeers(t, tk, nil)
	net := newAsyncNet(t, peers[:8], ringPlus(8))
	net.run(100)
	old := Summarize(accuracies(t, tk, peers[:8]))

	// Peer 8 joins with neighbours 0, 3 and 5, who learn of it too.
	joiner := peers[8]
	net.peers = append(net.peers, joiner)
	net.index[joiner.Config().ID] = 8
	nbrs := []int{0, 3, 5}
	net.link(8, nbrs)
	for _, j := range nbrs {
		adj := append(ringPlus(8)[j], 8)
		net.link(j, adj)
	}
	for joiner.Metrics().Rounds == 0 {
		if net.tick > 200+100 {
			t.Fatal("the joiner never finished a round")
		}
		net.run(1)
	}
	m := joiner.Metrics()
	if m.Adopted != 1 {
		t.Fatalf("joiner metrics %+v: want its first round adopted", m)
	}
	joined := accuracies(t, tk, peers[8:])[0]

	fresh := newPeers(t, tk, nil)[8]
	syncRounds(t, []*Peer{fresh}, [][]int{{}}, 1, false)
	alone := accuracies(t, tk, []*Peer{fresh})[0]
	t.Logf("network %.3f (min %.3f); joiner after its first round %.3f; fresh alone %.3f", old.Mean, old.Min, joined, alone)
	if joined < old.Mean-0.1 || joined < alone+0.15 {
		t.Fatalf("joiner %.3f: want >= network mean %.3f - 0.1 and >= fresh %.3f + 0.15", joined, old.Mean, alone)
	}
}
