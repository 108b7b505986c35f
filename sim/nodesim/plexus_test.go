package nodesim

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/plexus"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestPlexusDeadAggregatorCostsOneTimeout: Plexus on the real peer core,
// 12 peers, samples of 8 (max_peers 16), 30 rounds, at 8 seeds. Every
// real peer advertises bandwidth 1, so a sample's aggregator is its
// smallest ID: that peer is killed once round 2 is aggregated. The later
// rounds go on to the last (the survivors are done), no round is
// aggregated by the dead peer, and the dead aggregator costs one round
// timeout (T_round, three periods), not one per round that samples it:
// the peers that waited rank it last and tell the others (protocol/plexus
// TestHarnessDeadAggregatorCostsOneTimeout shows it for the core alone;
// issue #23 saw ten real peers' rounds go from 0.34 s to 4.72 s for good).
func TestPlexusDeadAggregatorCostsOneTimeout(t *testing.T) {
	const n, rounds = 12, 30
	for seed := uint64(1); seed <= 8; seed++ {
		cfg := DefaultConfig()
		cfg.Seed = seed
		spec := smallSpec("plexus", rounds)
		spec.MaxPeers = 16 // samples of 8
		spec.Init.Mode, spec.Init.Seed = "common", 7
		cfg.Method, cfg.TrainTime = learners(spec, cfg.Tick, skewedShards(seed, n), nil), 200*time.Millisecond
		s, ids := start(t, cfg, n, 0)
		victim := slices.MinFunc(ids, func(a, b ident.Peer) int { return bytes.Compare(a[:], b[:]) })
		aggAt := map[int]time.Duration{} // round -> when a live peer first had it aggregated
		killed := false
		for s.Now() < 3*time.Minute {
			s.Run(cfg.Tick)
			for _, id := range s.Live() {
				for _, k := range s.Node(id).Method().Core().Status().Aggregated {
					if _, ok := aggAt[int(k)]; !ok {
						aggAt[int(k)] = s.Now()
					}
				}
			}
			if _, ok := aggAt[2]; ok && !killed {
				if err := s.Kill(victim); err != nil {
					t.Fatal(err)
				}
				killed = true
			}
		}
		// The rounds whose sample holds the dead peer: its view of the
		// 12 (every member's bandwidth 1), as the core computes it.
		ms := make([]plexus.Member, n)
		for i, id := range ids {
			ms[i] = plexus.Member{ID: id, Bandwidth: 1}
		}
		v, err := plexus.NewView(ms...)
		if err != nil {
			t.Fatal(err)
		}
		sampled, roundWaits, aggWaits := 0, 0, 0
		var gaps []time.Duration
		for k := 1; k <= rounds; k++ {
			if _, ok := aggAt[k]; !ok {
				t.Fatalf("seed %d: round %d was never aggregated by a live peer (rounds aggregated: %d)", seed, k, len(aggAt))
			}
			if k < 3 {
				continue
			}
			if slices.Contains(v.Sample(uint64(k), 8), victim) {
				sampled++
			}
			gap := aggAt[k] - aggAt[k-1]
			gaps = append(gaps, gap)
			switch { // T_round 3 s, T_agg 2 s; a round without a wait takes 0.2-0.3 s
			case gap >= 3*time.Second:
				roundWaits++
			case gap >= 2*time.Second:
				aggWaits++
			}
		}
		t.Logf("seed %d: the dead aggregator sampled in %d of rounds 3-%d; %d waited T_round, %d T_agg; gaps %v", seed, sampled, rounds, roundWaits, aggWaits, gaps)
		if sampled < 10 {
			t.Errorf("seed %d: the dead peer was sampled in %d rounds: too few to tell", seed, sampled)
		}
		if roundWaits != 1 || aggWaits != 0 || len(s.Errors) > 0 {
			t.Errorf("seed %d: %d rounds waited T_round (want 1), %d T_agg (want 0); errors %v", seed, roundWaits, aggWaits, s.Errors)
		}
		for _, id := range s.Live() {
			st := s.Node(id).Method().Core().Status()
			if st.Role != "done" || len(st.Missed) > 1 || len(st.Missed) == 1 && st.Missed[0] != victim {
				t.Errorf("seed %d, %v: role %s at round %d, ranks %v last; want done, the dead peer at most", seed, id, st.Role, st.Round, st.Missed)
			}
		}
	}
}
