package netpeer

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// guardRig is a learner on the task's default rule (clipped-fedlay) with
// no transport: the test plays three honest neighbours and a liar by
// handing it models as rtc transfers and runs its rounds itself; the
// guard's time is the FedLay core's ticks.
type guardRig struct {
	t    *testing.T
	l    *learner
	core *coreRig // the peer core that drives the learner's method
	vers map[ident.Peer]uint64
	rng  *rand.Rand
	log  *testLog
	// denied records the links the learner asked the transport to close.
	denied []denial
}

func newGuardRig(t *testing.T) *guardRig {
	t.Helper()
	spec := task.DefaultSpec()
	spec.Name, spec.LocalEpochs, spec.LocalSteps, spec.PeriodMS = "guard", 0, 2, 1000
	if spec.Aggregator != "clipped-fedlay" {
		t.Fatalf("the default rule is %q: this test is about clipped-fedlay", spec.Aggregator)
	}
	train := synthetic(200, []int{0, 1, 2}, 1)
	self := ident.Peer{0x80}
	lc, err := node.LearnerConfig(spec, self, train, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := learn.NewPeer(lc, train)
	if err != nil {
		t.Fatal(err)
	}
	log := &testLog{}
	l, err := newLearner(LearnConfig{Build: func(task.Spec, ident.Peer) (*learn.Peer, *data.Dataset, error) { return nil, nil, nil }}, spec,
		lp, nil, nil, 100*time.Millisecond, log.logf)
	if err != nil {
		t.Fatal(err)
	}
	if l.method.FedLay() == nil {
		t.Fatal("a FedLay task without the FedLay core")
	}
	r := &guardRig{t: t, l: l, core: newCoreRig(t, l, 100*time.Millisecond), vers: map[ident.Peer]uint64{}, rng: rand.New(rand.NewPCG(1, 2)), log: log}
	l.deny = func(id ident.Peer, d time.Duration, why string) { r.denied = append(r.denied, denial{id, d}) }
	return r
}

// denial is one call of the learner's deny (the transport's Manager.Deny).
type denial struct {
	id ident.Peer
	d  time.Duration
}

// model hands the learner a model from id: ours plus a little noise,
// times scale.
func (r *guardRig) model(id ident.Peer, scale float32) {
	r.t.Helper()
	lp := r.l.peer
	ps := slices.Clone(lp.Published())
	for i := range ps {
		ps[i] = scale * (ps[i] + 0.01*float32(r.rng.NormFloat64()))
	}
	r.vers[id]++
	m := mep.Message{Type: mep.MsgModel, From: id, Version: r.vers[id], Fingerprint: mep.FingerprintOf(ps, nil),
		Model: mep.ModelHeader{Task: lp.Config().Task, Arch: lp.ArchTag(), NumParams: uint32(len(ps)),
			DataSize: 200, Period: uint32(lp.Config().MEP.Period), DataConf: 0.3}, Params: ps}
	hdr, err := mep.Encode(m)
	if err != nil {
		r.t.Fatal(err)
	}
	payload := make([]byte, 0, 4*len(ps))
	for _, x := range ps {
		payload = binary.LittleEndian.AppendUint32(payload, math.Float32bits(x))
	}
	r.core.transfer(id, rtc.Manifest{Meta: hdr, Fingerprint: m.Fingerprint, Task: m.Model.Task}, payload)
}

// round ticks the peer core until a round is due and has run, as the
// loop does; the core's messages are dropped (the neighbours are played
// by the test).
func (r *guardRig) round() {
	r.t.Helper()
	for range 10 * r.l.peer.Config().MEP.Period {
		if r.core.step() {
			return
		}
	}
	r.t.Fatal("no round came due")
}

// guard is the learner's FedLay guard and its time.
func (r *guardRig) guard() (*node.Guard, time.Time) {
	return r.l.method.FedLay().Guard(), r.l.method.FedLay().Now()
}

// dropped says whether the guard has dropped id now.
func (r *guardRig) dropped(id ident.Peer) bool { g, now := r.guard(); return g.Dropped(id, now) }

func mepIDs(ns []mep.Neighbor) []ident.Peer {
	ids := make([]ident.Peer, len(ns))
	for i, n := range ns {
		ids[i] = n.ID
	}
	return ids
}

// TestLearnerDropsRepeatOffender: a neighbour sending sign-flipped models
// a hundred times ours is clipped every round under clipped-fedlay, its
// reputation falls below the drop line after a few rounds, and the
// learner then stops exchanging models with it (out of the MEP's
// neighbours, its models refused as "dropped") while the honest ones
// stay; Status names it with its counts. After the ban it is let back at
// full trust.
func TestLearnerDropsRepeatOffender(t *testing.T) {
	r := newGuardRig(t)
	l := r.l
	honest := []ident.Peer{{0x10}, {0x20}, {0x30}}
	liar := ident.Peer{0xee}
	l.method.SetPeers(append(slices.Clone(honest), liar))
	r.round() // the first model: nothing to aggregate yet
	rounds := 0
	for ; rounds < 10 && !r.dropped(liar); rounds++ {
		for _, h := range honest {
			r.model(h, 1)
		}
		r.model(liar, -100)
		r.round()
	}
	s := l.status()
	if !r.dropped(liar) {
		t.Fatalf("liar not dropped after %d rounds: reputation %.2f, %+v", rounds, l.peer.Reputation(liar), s)
	}
	t.Logf("liar dropped after %d rounds; %d models clipped", rounds, s.ModelsClipped)
	if rounds > 5 || s.ModelsClipped < 3 || s.NeighborsDropped != 1 {
		t.Errorf("after %d rounds: %d clipped, %d dropped; want dropped within 5 rounds, >= 3 clipped, 1 drop", rounds, s.ModelsClipped, s.NeighborsDropped)
	}
	if got := mepIDs(l.peer.Neighbors()); !slices.Equal(got, honest) {
		t.Errorf("MEP neighbours %v, want the honest %v", got, honest)
	}
	if len(s.Offenders) != 1 || s.Offenders[0].ID != liar.Hex() || s.Offenders[0].Clipped != s.ModelsClipped ||
		s.Offenders[0].DroppedS <= 0 || s.Offenders[0].Reputation >= l.peer.Config().Reputation.DropBelow {
		t.Errorf("offenders %+v, want only the liar, dropped, with every clip", s.Offenders)
	}
	for _, h := range honest {
		if l.peer.Reputation(h) < 1 {
			t.Errorf("honest %v lost reputation: %.2f", h, l.peer.Reputation(h))
		}
	}
	// The link goes with the exchange: the transport is asked to close
	// the liar's connection and refuse it for the drop's whole time.
	guard, _ := r.guard()
	if len(r.denied) != 1 || r.denied[0] != (denial{liar, guard.BanFor()}) {
		t.Errorf("denials %+v, want the liar for %v", r.denied, guard.BanFor())
	}

	// Dropped: its models are refused unseen, counted by reason.
	clipped := s.ModelsClipped
	for range 3 {
		for _, h := range honest {
			r.model(h, 1)
		}
		r.model(liar, -100)
		r.round()
	}
	r.core.app(liar, []byte{0}) // an offer, say: not even decoded
	s = l.status()
	if s.ModelsClipped != clipped || s.ModelsRefused["dropped"] != 4 || s.Offenders[0].Refused["dropped"] != 4 {
		t.Errorf("while dropped: %d clipped (was %d), refused %v; want no more clips, 4 refused as dropped", s.ModelsClipped, clipped, s.ModelsRefused)
	}
	if s.ModelsReceived == 0 || s.Rounds < rounds+4 {
		t.Errorf("honest exchange stopped: %+v", s)
	}
	// One line for the first offence, one for the drop: the clips in
	// between (a round a second, under offenceLogEvery) are counted into
	// the next line, not logged one by one.
	lines := 0
	for _, line := range r.log.lines {
		if strings.Contains(line, liar.String()) {
			lines++
		}
	}
	if lines != 2 {
		t.Errorf("%d log lines about the liar in %d rounds, want 2 (rate-limited)\n%s", lines, rounds+3, strings.Join(r.log.lines, "\n"))
	}

	// After the ban (its time in the core's ticks): back in the MEP, at
	// full trust.
	for range int(guard.BanFor() / (100 * time.Millisecond)) {
		r.core.step()
	}
	r.round()
	if r.dropped(liar) || l.peer.Reputation(liar) != 1 || !slices.Contains(mepIDs(l.peer.Neighbors()), liar) {
		t.Errorf("after %v: dropped %v, reputation %.2f, MEP neighbours %v", guard.BanFor(),
			r.dropped(liar), l.peer.Reputation(liar), mepIDs(l.peer.Neighbors()))
	}
}
