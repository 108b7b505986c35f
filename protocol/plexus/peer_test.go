package plexus

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// trained is a MsgTrained of round k from member i, as sent to to.
func trained(ms []Member, i int, to ident.Peer, k uint64, attempt uint8) Message {
	return Message{Type: MsgTrained, From: ms[i].ID, To: to, Round: k, Bandwidth: ms[i].Bandwidth, Attempt: attempt,
		Model: ModelHeader{Arch: "m", NumParams: 2, DataSize: 1}, Params: []float32{float32(i), 1}}
}

// roundOne sets up 5 peers (s = 5, so S^1 is everyone) and returns them,
// the aggregator's index and the others' indices.
func roundOne(t *testing.T) ([]Member, int, []int) {
	ms := members(5)
	v, _ := NewView(ms...)
	a, _ := v.Aggregator(1, 5)
	ai := indexOf(ms, a)
	var others []int
	for i := range ms {
		if i != ai {
			others = append(others, i)
		}
	}
	return ms, ai, others
}

// The aggregator waits for floor(s*sf) = 4 models; below that it averages
// only at T_agg.
func TestSuccessFractionGate(t *testing.T) {
	ms, ai, others := roundOne(t)
	a := newPeer(t, ms, ai, nil)
	init := []float32{0, 0}
	if err := a.Start(init); err != nil {
		t.Fatal(err)
	}
	rd := a.Ready()
	if len(rd.Train) != 1 || rd.Train[0].Round != 1 {
		t.Fatalf("start: %+v", rd)
	}
	for _, i := range others[:2] {
		if err := a.Step(trained(ms, i, ms[ai].ID, 1, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.ReportTrained(1, []float32{9, 1}, 7); err != nil {
		t.Fatal(err)
	}
	if rd := a.Ready(); len(rd.Aggregate) != 0 || len(rd.Messages) != 0 {
		t.Fatalf("3 of gate 4 already aggregating/sending: %+v", rd)
	}
	for range 19 { // T_agg = 20 ticks from the train request at tick 0
		a.Tick()
	}
	if a.HasReady() {
		t.Fatal("aggregated before T_agg")
	}
	a.Tick()
	rd = a.Ready()
	if len(rd.Aggregate) != 1 || len(rd.Aggregate[0].Models) != 3 || a.Stats().AggTimeouts != 1 {
		t.Fatalf("at T_agg: %+v, stats %+v", rd, a.Stats())
	}
	task := rd.Aggregate[0]
	out := make([]float32, 2)
	if _, err := task.FedAvg(out); err != nil || math.Abs(float64(out[0])-float64(others[0]+others[1]+9)/3) > 1e-6 || out[1] != 1 {
		t.Fatalf("FedAvg %v %v", out, err)
	}
	// A late model is dropped, not averaged.
	if err := a.Step(trained(ms, others[2], ms[ai].ID, 1, 0)); err != nil || a.Stats().ModelsLate != 1 {
		t.Fatalf("late model: %v %+v", err, a.Stats())
	}
	if err := a.ReportAggregated(1, out); err != nil {
		t.Fatal(err)
	}
	checkCompletion(t, a, ms, 1, out)
	if s := a.Stats(); s.Trainings != 1 || s.TrainUnits != 7 || s.Aggregations != 1 {
		t.Fatalf("stats %+v", s)
	}
	if k, g := a.Global(); k != 1 || &g[0] != &out[0] {
		t.Fatalf("global round %d", k)
	}
}

// checkCompletion: after round k, S^k+1 gets train(k+1) (self: a
// TrainTask) and every member of S^k and S^k+1 but self gets
// MsgAggregated, every one before the first train request.
func checkCompletion(t *testing.T, p *Peer, ms []Member, k uint64, params []float32) {
	t.Helper()
	rd := p.Ready()
	v, _ := NewView(ms...)
	next := v.Sample(k+1, 5)
	var trains, dones []ident.Peer
	for _, m := range rd.Messages {
		switch {
		case m.Type == MsgTrain && m.Round == k+1 && &m.Params[0] == &params[0]:
			trains = append(trains, m.To)
		case m.Type == MsgAggregated && m.Round == k:
			if len(trains) > 0 {
				t.Fatalf("announcement to %v after a train request", m.To)
			}
			dones = append(dones, m.To)
		default:
			t.Fatalf("unexpected message %+v", m)
		}
	}
	self := p.cfg.ID
	for _, id := range next {
		if id == self {
			if len(rd.Train) != 1 || rd.Train[0].Round != k+1 {
				t.Fatalf("self in S^%d but no TrainTask: %+v", k+1, rd.Train)
			}
		} else if !slices.Contains(trains, id) {
			t.Fatalf("S^%d member %v got no train request", k+1, id)
		}
	}
	if len(trains) != len(next)-boolInt(slices.Contains(next, self)) {
		t.Fatalf("train requests to %v, want S^%d = %v", trains, k+1, next)
	}
	for _, id := range append(v.Sample(k, 5), next...) {
		want := id != self
		if slices.Contains(dones, id) != want {
			t.Fatalf("MsgAggregated to %v: %v, want %v", id, !want, want)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestGateReachedAggregatesAtOnce(t *testing.T) {
	ms, ai, others := roundOne(t)
	a := newPeer(t, ms, ai, nil)
	a.Start([]float32{0, 0}) //nolint:errcheck
	a.Ready()
	for _, i := range others[:3] {
		a.Step(trained(ms, i, ms[ai].ID, 1, 0)) //nolint:errcheck
	}
	if a.HasReady() {
		t.Fatal("aggregating with 3 of 4")
	}
	a.ReportTrained(1, []float32{1, 1}, 1) //nolint:errcheck
	rd := a.Ready()
	if len(rd.Aggregate) != 1 || len(rd.Aggregate[0].Models) != 4 || a.Stats().AggTimeouts != 0 {
		t.Fatalf("gate reached: %+v", rd)
	}
	// A second copy of a model from the same member is not counted twice.
	b := newPeer(t, ms, ai, nil)
	for range 5 {
		b.Step(trained(ms, others[0], ms[ai].ID, 1, 0)) //nolint:errcheck
	}
	if b.HasReady() || b.Stats().ModelsLate != 4 {
		t.Fatalf("duplicates: %+v", b.Stats())
	}
}

// A member whose aggregator stays silent re-sends to the next rank after
// T_round, and stops once the round is known complete.
func TestMemberEscalates(t *testing.T) {
	ms, ai, others := roundOne(t)
	mi := others[0]
	m := newPeer(t, ms, mi, func(c *Config) { c.MaxAttempts = 2 })
	m.Start([]float32{0, 0}) //nolint:errcheck
	m.Ready()
	if err := m.ReportTrained(1, []float32{3, 3}, 1); err != nil {
		t.Fatal(err)
	}
	rd := m.Ready()
	ranks := m.View().Ranking(1, 5)
	if len(rd.Messages) != 1 || rd.Messages[0].To != ms[ai].ID || rd.Messages[0].To != ranks[0] || rd.Messages[0].Attempt != 0 {
		t.Fatalf("first send %+v", rd.Messages)
	}
	for range 29 {
		m.Tick()
	}
	if m.HasReady() {
		t.Fatal("escalated before T_round")
	}
	m.Tick()
	rd = m.Ready()
	if ranks[1] == m.cfg.ID {
		// This member is itself the fallback: it keeps its model and
		// collects (T_agg running).
		if len(rd.Messages) != 0 || m.colls[1] == nil {
			t.Fatalf("self fallback: %+v", rd)
		}
	} else if len(rd.Messages) != 1 || rd.Messages[0].To != ranks[1] || rd.Messages[0].Attempt != 1 {
		t.Fatalf("escalation %+v", rd.Messages)
	}
	if m.Stats().Escalations != 1 {
		t.Fatalf("stats %+v", m.Stats())
	}
	if ranks[1] != m.cfg.ID {
		// MaxAttempts 2: after the second silence it gives up.
		for range 30 {
			m.Tick()
		}
		if m.HasReady() || m.Stats().GaveUp != 1 {
			t.Fatalf("after 2 attempts: %+v %+v", m.Ready(), m.Stats())
		}
	}

	// Completion stops the timer.
	m2 := newPeer(t, ms, mi, nil)
	m2.Start([]float32{0, 0})               //nolint:errcheck
	m2.ReportTrained(1, []float32{3, 3}, 1) //nolint:errcheck
	m2.Ready()
	done := Message{Type: MsgAggregated, From: ms[ai].ID, To: ms[mi].ID, Round: 1, Bandwidth: ms[ai].Bandwidth, Count: 4}
	if err := m2.Step(done); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		m2.Tick()
	}
	// (A member of S^2 waits for its train request instead: resume_test.go.)
	for _, msg := range m2.Ready().Messages {
		if msg.Type == MsgTrained {
			t.Fatalf("escalated after completion: %+v", msg)
		}
	}
	if m2.Stats().Escalations != 0 {
		t.Fatalf("escalated after completion: %+v", m2.Stats())
	}
}

// A fallback aggregator adopts round k on its first model, adding its own
// trained model, and a member that finished training after completion
// drops its result.
func TestFallbackAggregatorAndLateTraining(t *testing.T) {
	ms, ai, _ := roundOne(t)
	v, _ := NewView(ms...)
	ranks := v.Ranking(1, 5)
	bi := indexOf(ms, ranks[1])
	b := newPeer(t, ms, bi, nil)
	b.Start([]float32{0, 0})               //nolint:errcheck
	b.ReportTrained(1, []float32{4, 4}, 1) //nolint:errcheck
	b.Ready()                              // its model went to rank 0
	var senders []int
	for i := range ms {
		if i != ai && i != bi {
			senders = append(senders, i)
		}
	}
	b.Step(trained(ms, senders[0], ms[bi].ID, 1, 1)) //nolint:errcheck
	b.Step(trained(ms, senders[1], ms[bi].ID, 1, 1)) //nolint:errcheck
	if b.HasReady() {
		t.Fatal("fallback aggregating with 3 of 4")
	}
	b.Step(trained(ms, senders[2], ms[bi].ID, 1, 1)) //nolint:errcheck
	rd := b.Ready()
	if len(rd.Aggregate) != 1 || len(rd.Aggregate[0].Models) != 4 || rd.Aggregate[0].Base == nil {
		t.Fatalf("fallback: %+v", rd)
	}
	if b.Stats().Escalations != 0 {
		t.Fatal("fallback escalated its own model")
	}

	// A slow member: the round completes before its training does.
	c := newPeer(t, ms, senders[0], nil)
	c.Start([]float32{0, 0}) //nolint:errcheck
	c.Ready()
	if !c.Wanted(1) {
		t.Fatal("round 1 not wanted while training")
	}
	c.Step(Message{Type: MsgAggregated, From: ms[ai].ID, Round: 1, Bandwidth: 1, Count: 4}) //nolint:errcheck
	if c.Wanted(1) {
		t.Fatal("round 1 wanted after completion")
	}
	if err := c.ReportTrained(1, []float32{1, 1}, 5); err != nil {
		t.Fatal(err)
	}
	if c.HasReady() || c.Stats().TrainedLate != 1 || c.Stats().TrainUnits != 5 {
		t.Fatalf("late training: %+v", c.Stats())
	}
	if err := c.ReportTrained(1, []float32{1, 1}, 5); !errors.Is(err, ErrNoTask) {
		t.Fatalf("second report: %v", err)
	}
}

func TestDuplicateTrainAndRejects(t *testing.T) {
	ms := members(5)
	p := newPeer(t, ms, 0, nil)
	train := func(from int, k uint64, params []float32) Message {
		return Message{Type: MsgTrain, From: ms[from].ID, Round: k, Bandwidth: 7, Model: ModelHeader{Arch: "m", NumParams: 2}, Params: params}
	}
	if err := p.Step(train(1, 3, []float32{1, 2})); err != nil {
		t.Fatal(err)
	}
	if err := p.Step(train(2, 3, []float32{5, 5})); err != nil {
		t.Fatal(err)
	}
	rd := p.Ready()
	if len(rd.Train) != 1 || rd.Train[0].Params[0] != 1 || p.Stats().DuplicateTrains != 1 {
		t.Fatalf("duplicate train: %+v %+v", rd, p.Stats())
	}
	if bw, _ := p.View().Bandwidth(ms[1].ID); bw != 7 {
		t.Fatalf("view not refreshed from the message: %d", bw)
	}
	bad := []struct {
		m    Message
		want error
	}{
		{train(1, 4, []float32{1}), ErrBadModel},
		{train(1, 4, []float32{1, float32(math.Inf(1))}), ErrBadModel},
		{func() Message { m := train(1, 4, []float32{1, 2}); m.Model.Arch = "x"; return m }(), ErrBadModel},
		{func() Message { m := train(1, 4, []float32{1, 2}); m.To = ms[3].ID; return m }(), ErrNotForMe},
		{train(0, 4, []float32{1, 2}), ErrNotForMe}, // from self
		{func() Message { m := train(1, 4, []float32{1, 2}); m.Bandwidth = 0; return m }(), ErrField},
	}
	for i, c := range bad {
		if err := p.Step(c.m); !errors.Is(err, c.want) {
			t.Errorf("bad %d: %v, want %v", i, err, c.want)
		}
	}
	p.Step(train(1, 100, []float32{1, 2})) //nolint:errcheck
	if err := p.Step(train(1, 100-Window, []float32{1, 2})); !errors.Is(err, ErrStale) {
		t.Fatalf("stale: %v", err)
	}
	if err := p.ReportAggregated(3, []float32{1, 2}); !errors.Is(err, ErrNoTask) {
		t.Fatalf("unasked aggregation: %v", err)
	}
	if err := p.Start([]float32{0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := p.Start([]float32{0, 0}); !errors.Is(err, ErrStarted) {
		t.Fatalf("second start: %v", err)
	}
	c := testConfig(ms[0].ID, 1)
	c.RoundTimeout = c.AggTimeout
	if _, err := New(c); !errors.Is(err, ErrConfig) {
		t.Fatalf("T_round <= T_agg: %v", err)
	}
}
