package plexus

import (
	"math"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// simNet runs peers in process on virtual ticks: messages arrive latency
// ticks after they are sent, training takes trainTicks, aggregation is
// instant. A crashed peer receives nothing, sends nothing and never ticks.
type simNet struct {
	t          *testing.T
	ms         []Member
	peers      []*Peer
	crashed    map[ident.Peer]bool
	now        int64
	latency    int64
	trainTicks func(i int, k uint64) int64
	msgs       []inflight
	jobs       []job
	aggs       []aggRecord
	// onAggregated runs after each completed aggregation.
	onAggregated func(n *simNet, r aggRecord)
	// anyBase: a round aggregated twice (a fallback's duplicate) gives
	// the next sample two train requests, and its members train from
	// whichever came first, so a collection may mix bases: aggregate
	// does not check each model against the collection's base.
	anyBase bool
}

type inflight struct {
	at int64
	m  Message
}

type job struct {
	at   int64
	peer int
	k    uint64
	out  []float32
}

type aggRecord struct {
	k      uint64
	by     ident.Peer
	from   []ident.Peer
	at     int64
	result []float32
}

// The toy training: member i adds i+1 to every parameter.
func trainStep(i int, base []float32) []float32 {
	out := slices.Clone(base)
	for j := range out {
		out[j] += float32(i + 1)
	}
	return out
}

func newSimNet(t *testing.T, n int, mod func(*Config)) *simNet {
	return newSimNetOf(t, members(n), mod)
}

// newSimNetOf runs members ms (each peer's view holds them all).
func newSimNetOf(t *testing.T, ms []Member, mod func(*Config)) *simNet {
	s := &simNet{t: t, ms: ms, crashed: map[ident.Peer]bool{}, latency: 1,
		trainTicks: func(int, uint64) int64 { return 3 }}
	for i := range ms {
		s.peers = append(s.peers, newPeer(t, ms, i, mod))
	}
	init := []float32{0, 0}
	for _, p := range s.peers {
		if err := p.Start(init); err != nil {
			t.Fatal(err)
		}
	}
	s.drain()
	return s
}

func (s *simNet) index(id ident.Peer) int { return indexOf(s.ms, id) }

// drain serves every peer's Ready until all are quiet.
func (s *simNet) drain() {
	for busy := true; busy; {
		busy = false
		for i, p := range s.peers {
			if s.crashed[p.cfg.ID] || !p.HasReady() {
				continue
			}
			busy = true
			rd := p.Ready()
			for _, m := range rd.Messages {
				if m.From != p.cfg.ID {
					s.t.Fatalf("message from %v sent by %v", m.From, p.cfg.ID)
				}
				s.msgs = append(s.msgs, inflight{s.now + s.latency, m})
			}
			for _, tt := range rd.Train {
				s.jobs = append(s.jobs, job{s.now + s.trainTicks(i, tt.Round), i, tt.Round, trainStep(i, tt.Params)})
			}
			for _, at := range rd.Aggregate {
				s.aggregate(i, at)
			}
		}
	}
}

func (s *simNet) aggregate(i int, at AggregateTask) {
	p := s.peers[i]
	out := make([]float32, 2)
	if _, err := at.FedAvg(out); err != nil {
		s.t.Fatal(err)
	}
	// Every model was trained from the round's base: base + (j+1).
	var mean float64
	for _, m := range at.Models {
		j := s.index(m.From)
		if at.Base != nil && !s.anyBase && m.Params[0] != at.Base[0]+float32(j+1) {
			s.t.Fatalf("round %d: model of %d is %v, base %v", at.Round, j, m.Params, at.Base)
		}
		mean += float64(j+1) / float64(len(at.Models))
	}
	if at.Base != nil && !s.anyBase && math.Abs(float64(out[0]-at.Base[0])-mean) > 1e-3 {
		s.t.Fatalf("round %d: average %v, base %v, mean step %v", at.Round, out, at.Base, mean)
	}
	r := aggRecord{k: at.Round, by: p.cfg.ID, at: s.now, result: out}
	for _, m := range at.Models {
		r.from = append(r.from, m.From)
	}
	if err := p.ReportAggregated(at.Round, out); err != nil {
		s.t.Fatal(err)
	}
	s.aggs = append(s.aggs, r)
	if s.onAggregated != nil {
		s.onAggregated(s, r)
	}
}

// run advances until every peer is idle and nothing is in flight, or
// maxTicks pass.
func (s *simNet) run(maxTicks int) {
	for range maxTicks {
		s.now++
		var later []inflight
		for _, f := range s.msgs {
			if f.at > s.now {
				later = append(later, f)
				continue
			}
			if i := s.index(f.m.To); !s.crashed[f.m.To] {
				if err := s.peers[i].Step(f.m); err != nil {
					s.t.Fatalf("step %v at %d: %v", f.m.Type, i, err)
				}
			}
		}
		s.msgs = later
		var pending []job
		for _, j := range s.jobs {
			if j.at > s.now {
				pending = append(pending, j)
				continue
			}
			if p := s.peers[j.peer]; !s.crashed[p.cfg.ID] {
				if err := p.ReportTrained(j.k, j.out, 10); err != nil {
					s.t.Fatal(err)
				}
			}
		}
		s.jobs = pending
		for _, p := range s.peers {
			if !s.crashed[p.cfg.ID] {
				p.Tick()
			}
		}
		s.drain()
	}
}

func (s *simNet) rounds() map[uint64][]aggRecord {
	out := map[uint64][]aggRecord{}
	for _, r := range s.aggs {
		out[r.k] = append(out[r.k], r)
	}
	return out
}

// Twenty peers run ten rounds without failures: every round is averaged
// once, by a^k, from at least floor(s*sf) members of S^k, and the bytes
// sent equal the bytes received.
func TestHarnessTwentyPeers(t *testing.T) {
	const rounds = 10
	s := newSimNet(t, 20, func(c *Config) { c.Rounds = rounds })
	s.run(200)
	v, _ := NewView(s.ms...)
	byRound := s.rounds()
	if len(byRound) != rounds {
		t.Fatalf("%d rounds aggregated, want %d", len(byRound), rounds)
	}
	var prev []float32 = []float32{0, 0}
	for k := uint64(1); k <= rounds; k++ {
		rs := byRound[k]
		a, _ := v.Aggregator(k, 5)
		if len(rs) != 1 || rs[0].by != a {
			t.Fatalf("round %d: aggregations %+v, want one by %v", k, rs, a)
		}
		smp := v.Sample(k, 5)
		if len(rs[0].from) < 4 {
			t.Fatalf("round %d: %d models, below the gate", k, len(rs[0].from))
		}
		for _, id := range rs[0].from {
			if !slices.Contains(smp, id) {
				t.Fatalf("round %d: model from %v outside S^k", k, id)
			}
		}
		if rs[0].result[0] <= prev[0] {
			t.Fatalf("round %d did not start from round %d's model", k, k-1)
		}
		prev = rs[0].result
	}
	var sent, recv Traffic
	var trainings, units, late uint64
	finished := 0
	for _, p := range s.peers {
		st := p.Stats()
		sent.Msgs += st.TotalSent().Msgs
		sent.Bytes += st.TotalSent().Bytes
		recv.Msgs += st.TotalReceived().Msgs
		recv.Bytes += st.TotalReceived().Bytes
		trainings += st.Trainings
		units += st.TrainUnits
		late += st.ModelsLate
		if st.Escalations+st.AggTimeouts+st.GaveUp+st.Rejected+st.ResumeTimeouts+st.Resumes != 0 {
			t.Fatalf("failure handling without failures: %+v", st)
		}
		if p.Finished() {
			finished++
		}
		if k, g := p.Global(); k > 0 && g[0] != byRound[k][0].result[0] {
			t.Fatalf("peer's global model of round %d differs", k)
		}
	}
	if sent != recv || sent.Msgs == 0 {
		t.Fatalf("sent %+v, received %+v", sent, recv)
	}
	// Every member of every sample trained once; 4 of 5 arrived in time.
	if trainings != rounds*5 || units != 10*trainings || late != rounds {
		t.Fatalf("trainings %d, units %d, late models %d", trainings, units, late)
	}
	if finished != 1 {
		t.Fatalf("%d peers finished, want the last aggregator", finished)
	}
}

// The aggregator of round 2 crashes as round 2 begins: the members of S^2
// time out after T_round, re-send to the next-best-bandwidth member, and
// training goes on to the last round.
func TestHarnessAggregatorCrash(t *testing.T) {
	const rounds = 6
	s := newSimNet(t, 20, func(c *Config) { c.Rounds = rounds })
	v, _ := NewView(s.ms...)
	victim, _ := v.Aggregator(2, 5)
	s.onAggregated = func(n *simNet, r aggRecord) {
		if r.k == 1 {
			n.crashed[victim] = true
		}
	}
	s.run(400)
	byRound := s.rounds()
	for k := uint64(1); k <= rounds; k++ {
		if len(byRound[k]) != 1 {
			t.Fatalf("round %d aggregated %d times", k, len(byRound[k]))
		}
	}
	r2 := byRound[2][0]
	ranks := v.Ranking(2, 5)
	if r2.by != ranks[1] {
		t.Fatalf("round 2 aggregated by %v, want the fallback %v", r2.by, ranks[1])
	}
	if slices.Contains(r2.from, victim) || len(r2.from) != 4 {
		t.Fatalf("round 2 models from %v", r2.from)
	}
	// Round 1 ended at ~t=5; round 2's members sent at ~t=9 and waited
	// T_round = 30 before re-sending.
	if r2.at-byRound[1][0].at < 30 {
		t.Fatalf("round 2 completed %d ticks after round 1, before T_round", r2.at-byRound[1][0].at)
	}
	var esc uint64
	for _, id := range v.Sample(2, 5) {
		if id != victim {
			esc += s.peers[s.index(id)].Stats().Escalations
		}
	}
	if esc == 0 {
		t.Fatal("no member escalated")
	}
	if !slices.ContainsFunc(s.peers, func(p *Peer) bool { return p.Finished() }) {
		t.Fatal("nobody finished the last round")
	}
}

// Two members of every sample are slow: the aggregator cannot reach the
// gate and averages the 3 models it has at T_agg.
func TestHarnessAggTimeout(t *testing.T) {
	const rounds = 3
	s := newSimNet(t, 12, func(c *Config) { c.Rounds = rounds })
	v, _ := NewView(s.ms...)
	s.trainTicks = func(i int, k uint64) int64 {
		// The two lowest-ranked members of S^k take forever.
		r := v.Ranking(k, 5)
		if id := s.ms[i].ID; id == r[3] || id == r[4] {
			return 1000
		}
		return 3
	}
	// Round 1's tasks were handed out before trainTicks changed: reassign.
	for j := range s.jobs {
		s.jobs[j].at = s.trainTicks(s.jobs[j].peer, s.jobs[j].k)
	}
	s.run(200)
	byRound := s.rounds()
	for k := uint64(1); k <= rounds; k++ {
		if len(byRound[k]) != 1 || len(byRound[k][0].from) != 3 {
			t.Fatalf("round %d: %+v, want one aggregation of 3 models", k, byRound[k])
		}
	}
	var timeouts uint64
	for _, p := range s.peers {
		timeouts += p.Stats().AggTimeouts
	}
	if timeouts != rounds {
		t.Fatalf("%d aggregations by timeout, want %d", timeouts, rounds)
	}
}
