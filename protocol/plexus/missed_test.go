package plexus

import (
	"bytes"
	"slices"
	"testing"
)

// Peers advertise bandwidth 1, as every real peer does, so each
// sample's aggregator is its smallest ID. That peer dies after round 2.
// Every later round that sampled it waited T_round for it before the
// next rank took over (ten real peers: rounds went from 0.34 s to 4.72 s
// for good, issue #23). Now the members that waited rank it last, and
// the fallback aggregator's messages tell the next sample: with ten
// peers and samples of eight (the case) one round pays the
// timeout and the others run at full speed. With forty peers the news
// reaches a peer when it is sampled with one that knows: a round with a
// peer that does not yet know waits T_agg at the fallback aggregator
// for that peer's model, but only the first waits T_round.
func TestHarnessDeadAggregatorCostsOneTimeout(t *testing.T) {
	for _, c := range []struct {
		n, rounds, s, maxAggWaits int
	}{{10, 30, 8, 0}, {40, 60, 8, 4}} {
		ms := make([]Member, c.n)
		for i := range ms {
			ms[i] = Member{pid(i), 1}
		}
		sn := newSimNetOf(t, ms, func(cf *Config) { cf.Rounds, cf.SampleSize = uint64(c.rounds), c.s })
		victim := slices.MinFunc(ms, func(a, b Member) int { return bytes.Compare(a.ID[:], b.ID[:]) }).ID
		sn.onAggregated = func(n *simNet, r aggRecord) {
			if r.k == 2 {
				n.crashed[victim] = true
			}
		}
		sn.run(100 * c.rounds)
		byRound := sn.rounds()
		v, _ := NewView(ms...)
		roundWaits, aggWaits, sampled := 0, 0, 0
		var prev int64
		for k := uint64(1); k <= uint64(c.rounds); k++ {
			rs := byRound[k]
			if len(rs) != 1 {
				t.Fatalf("%d peers: round %d aggregated %d times", c.n, k, len(rs))
			}
			took := rs[0].at - prev
			prev = rs[0].at
			if k <= 2 {
				continue
			}
			if slices.Contains(v.Sample(k, c.s), victim) {
				sampled++
			}
			switch { // T_round 30, T_agg 20; a round without a wait takes ~5 ticks
			case took >= 30:
				roundWaits++
			case took >= 20:
				aggWaits++
			}
			if rs[0].by == victim {
				t.Fatalf("%d peers: round %d aggregated by the dead peer", c.n, k)
			}
		}
		t.Logf("%d peers, samples of %d: the dead aggregator sampled in %d rounds; %d waited T_round, %d T_agg", c.n, c.s, sampled, roundWaits, aggWaits)
		if sampled < 10 {
			t.Fatalf("%d peers: the dead peer was sampled in %d rounds: too few to tell", c.n, sampled)
		}
		if roundWaits != 1 || aggWaits > c.maxAggWaits {
			t.Errorf("%d peers: %d rounds waited T_round (want 1), %d T_agg (want at most %d)", c.n, roundWaits, aggWaits, c.maxAggWaits)
		}
		for _, p := range sn.peers {
			if got := p.View().MissedMembers(); p.cfg.ID != victim && !(len(got) == 0 || len(got) == 1 && got[0] == victim) {
				t.Errorf("%d peers: peer %v ranks %v last, want the dead one at most", c.n, p.cfg.ID, got)
			}
		}
	}
}

// A member that missed its role is ranked last until heard from; the
// sample stays the same.
func TestViewMissedRanksLast(t *testing.T) {
	ms := members(6)
	v, _ := NewView(ms...)
	r := v.Ranking(4, 6)
	sample := v.Sample(4, 6)
	if !v.Missed(r[0]) || v.Missed(r[0]) || v.Missed(pid(99)) {
		t.Fatal("Missed: changed twice, or took an unknown member")
	}
	got := v.Ranking(4, 6)
	if !slices.Equal(got, append(slices.Clone(r[1:]), r[0])) || !slices.Equal(v.Sample(4, 6), sample) {
		t.Fatalf("ranking %v after missing %v (was %v)", got, r[0], r)
	}
	if a, _ := v.Aggregator(4, 6); a != r[1] {
		t.Errorf("aggregator %v, want %v", a, r[1])
	}
	if !v.Heard(r[0]) || v.Heard(r[0]) || !slices.Equal(v.Ranking(4, 6), r) || len(v.MissedMembers()) != 0 {
		t.Errorf("Heard did not restore the ranking: %v", v.Ranking(4, 6))
	}
	v.Missed(r[2])
	v.Remove(r[2])
	if len(v.MissedMembers()) != 0 {
		t.Errorf("a removed member is still missed")
	}
}
