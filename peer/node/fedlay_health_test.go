package node

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/health"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A FedLay core whose peer runs the neighbourhood check (HealthOn) hears
// four neighbours, three of which send a model that answers one class
// for everything: the check finds the neighbourhood captured and the
// core says so in its log with each request for a new placement, one at
// capture and then at most every Cooldown alarming rounds (the bound of
// engine/health), and never without one.
func TestFedLayCoreHealthCaptured(t *testing.T) {
	spec := fedlaySpec(nil)
	syn := data.NewSynthetic(rand.New(rand.NewPCG(99, 99)), [3]int{28, 28, 1}, 10, 0.3)
	train := syn.Draw(rand.New(rand.NewPCG(0, 7)), 64, syn.Cycle)
	lc, err := LearnerConfig(spec, fedlayID(0), train, fedlayTick)
	if err != nil {
		t.Fatal(err)
	}
	HealthOn(&lc, train.Classes)
	lp, err := learn.NewPeer(lc, train)
	if err != nil {
		t.Fatal(err)
	}
	var asks int
	c, err := NewFedLayCore(spec, lp, fedlayTick, FedLayHooks{Logf: func(f string, a ...any) {
		if strings.HasPrefix(f, "health: neighbourhood captured") {
			asks++
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	honest, liars := fedlayID(1), []ident.Peer{fedlayID(2), fedlayID(3), fedlayID(4)}
	if err := c.SetPeers(append([]ident.Peer{honest}, liars...)); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vers := map[ident.Peer]uint64{}
	send := func(id ident.Peer, oneClass bool) {
		ps := slices.Clone(lp.Published())
		for i := range ps {
			ps[i] += 0.05 * float32(rng.NormFloat64())
		}
		if oneClass {
			ps[len(ps)-train.Classes] += 50 // the output bias of class 0
		}
		vers[id]++
		stepModel(t, c, id, vers[id], ps)
	}
	round := func() { runRound(t, c) }
	round() // the first model: nothing to aggregate yet
	for range 16 {
		send(honest, false)
		for _, id := range liars {
			send(id, true)
		}
		round()
	}
	hs, ok := lp.Health()
	t.Logf("health %+v, %d requests logged", hs, asks)
	cfg := health.DefaultConfig()
	if !ok || hs.State != health.Captured || hs.Disagree < len(liars) {
		t.Fatalf("health %+v: want captured, the %d liars disagreeing", hs, len(liars))
	}
	if most := 1 + (hs.Alarming-cfg.Patience)/cfg.Cooldown; asks != hs.Replacements || asks < 2 || asks > most {
		t.Errorf("%d requests logged, the check counted %d in %d alarming rounds: want them equal, 2..%d", asks, hs.Replacements, hs.Alarming, most)
	}
}
