package node

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The FedLay core (fedlay.go) driven as every method core is: ticks,
// Steps with what others' Ready sent, and its rounds run as Jobs and
// reported by Trained, by a small in-test runtime on a shared tick.

const fedlayTick = 100 * time.Millisecond

func fedlayID(i int) ident.Peer {
	return ident.PeerFromPublicKey(fmt.Appendf(nil, "fedlay core %d", i))
}

// fedlaySpec is a small FedLay task: the MLP on MNIST-shaped data, one
// local step a round, a 1 s period (10 ticks).
func fedlaySpec(mutate func(*task.Spec)) task.Spec {
	s := task.DefaultSpec()
	s.Name, s.PeriodMS, s.LocalEpochs, s.LocalSteps, s.Batch = "fedlay-core", 1000, 0, 1, 16
	if mutate != nil {
		mutate(&s)
	}
	return s
}

// fedlayPeer builds peer i's learning peer and core for spec, as a real
// peer does (LearnerConfig, learn.NewPeer, NewFedLayCore).
func fedlayPeer(t *testing.T, spec task.Spec, i int, logf func(string, ...any)) *FedLay {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	syn := data.NewSynthetic(rand.New(rand.NewPCG(99, 99)), [3]int{28, 28, 1}, 10, 0.3)
	train := syn.Draw(rng, 64, syn.Cycle)
	lc, err := LearnerConfig(spec, fedlayID(i), train, fedlayTick)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := learn.NewPeer(lc, train)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFedLayCore(spec, lp, fedlayTick, FedLayHooks{Logf: logf})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fedlayNet runs cores that are all each other's peers; messages arrive
// within the tick they were sent in, in order.
type fedlayNet struct {
	t       *testing.T
	cores   []*FedLay
	index   map[ident.Peer]int
	queue   []delivery
	refused []error
	// sends records every model sent (its Params and Rest lengths).
	sends []method.Send
}

type delivery struct {
	from, to int
	header   []byte
	vals     []float32
}

func newFedlayNet(t *testing.T, spec task.Spec, n int) *fedlayNet {
	net := &fedlayNet{t: t, index: map[ident.Peer]int{}}
	for i := range n {
		net.cores = append(net.cores, fedlayPeer(t, spec, i, t.Logf))
		net.index[fedlayID(i)] = i
	}
	for i, c := range net.cores {
		var peers []ident.Peer
		for j := range n {
			if j != i {
				peers = append(peers, fedlayID(j))
			}
		}
		if err := c.SetPeers(peers); err != nil {
			t.Fatal(err)
		}
	}
	return net
}

// drain carries out what core i has ready: sends are queued, a round's
// Job runs at once.
func (n *fedlayNet) drain(i int) {
	c := n.cores[i]
	for c.HasReady() {
		rd := c.Ready()
		for _, s := range rd.Sends {
			var vals []float32
			if s.Params != nil {
				n.sends = append(n.sends, s)
				vals = append(slices.Clone(s.Params), s.Rest...) // as a runtime's payload carries them
			}
			n.queue = append(n.queue, delivery{from: i, to: n.index[s.To], header: s.Header, vals: vals})
		}
		if tr := rd.Train; tr != nil {
			if tr.Job == nil || tr.Params != nil {
				n.t.Fatalf("peer %d: a FedLay round is a Job: %+v", i, tr)
			}
			tr.Job.Run()
			if err := c.Trained(nil, tr.Job.Samples()); err != nil {
				n.t.Fatalf("peer %d: %v", i, err)
			}
		}
	}
}

// tick ticks every core and delivers until nothing is left to send.
func (n *fedlayNet) tick() {
	for i, c := range n.cores {
		c.Tick()
		n.drain(i)
	}
	for len(n.queue) > 0 {
		d := n.queue[0]
		n.queue = n.queue[1:]
		if err := n.cores[d.to].Step(fedlayID(d.from), d.header, d.vals); err != nil {
			n.refused = append(n.refused, err)
		}
		n.drain(d.to)
	}
}

// Three FedLay cores with max_rounds 3 exchange models over the MEP and
// each stops after its third round: Role "done", its model final, the
// models of the others taken in.
func TestFedLayCoreExchangesAndStopsAtMaxRounds(t *testing.T) {
	net := newFedlayNet(t, fedlaySpec(func(s *task.Spec) { s.MaxRounds = 3 }), 3)
	ticks := 0
	for ; ticks < 200; ticks++ {
		net.tick()
		done := 0
		for _, c := range net.cores {
			if c.Status().Role == "done" {
				done++
			}
		}
		if done == len(net.cores) {
			break
		}
	}
	if len(net.refused) > 0 {
		t.Errorf("honest messages refused: %v", net.refused)
	}
	for i, c := range net.cores {
		st := c.Status()
		if st.Method != "fedlay" || st.Round != 3 || st.MaxRounds != 3 || st.Role != "done" || st.Peers != 2 {
			t.Errorf("peer %d after %d ticks: %+v; want 3 of 3 rounds, done, 2 peers", i, ticks, st)
		}
		if st.ModelsReceived == 0 || st.ModelsSent == 0 {
			t.Errorf("peer %d exchanged no models: %+v", i, st)
		}
		if m := c.Model(); m == nil || !slices.Equal(m, c.Peer().Published()) {
			t.Errorf("peer %d: Model is not the published model", i)
		}
		if mt := c.Peer().Metrics(); mt.Rounds != 3 {
			t.Errorf("peer %d: learn.Peer counts %d rounds", i, mt.Rounds)
		}
	}
	// Done: more ticks start no round.
	for range 50 {
		net.tick()
	}
	for i, c := range net.cores {
		if r := c.Status().Round; r != 3 {
			t.Errorf("peer %d trained on after max_rounds: %d rounds", i, r)
		}
	}
}

// Under DecHW a model's Hessian goes along as Send.Rest (raw float32,
// never through a lossy codec) and is taken back from the tail of the
// received values.
func TestFedLayCoreCarriesTheHessian(t *testing.T) {
	net := newFedlayNet(t, fedlaySpec(func(s *task.Spec) { s.Aggregator = "dechw" }), 2)
	for range 60 {
		net.tick()
	}
	if len(net.refused) > 0 {
		t.Errorf("models refused: %v", net.refused)
	}
	if len(net.sends) == 0 {
		t.Fatal("no model sent")
	}
	for _, s := range net.sends {
		if len(s.Rest) == 0 || len(s.Rest) != len(s.Params) {
			t.Fatalf("a DecHW model of %d parameters with a Hessian of %d", len(s.Params), len(s.Rest))
		}
	}
	for i, c := range net.cores {
		if st := c.Status(); st.ModelsReceived == 0 || st.Round < 2 {
			t.Errorf("peer %d: %+v", i, st)
		}
	}
}

// What arrives malformed is refused with the method's error, counted by
// the MEP, never a panic.
func TestFedLayCoreRefusesMalformed(t *testing.T) {
	c := fedlayPeer(t, fedlaySpec(nil), 0, t.Logf)
	other, liar := fedlayID(1), fedlayID(2)
	if err := c.SetPeers([]ident.Peer{other, liar}); err != nil {
		t.Fatal(err)
	}
	lp := c.Peer()
	params := make([]float32, lp.NumParams())
	model := mep.Message{Type: mep.MsgModel, From: other, Version: 1, Fingerprint: mep.FingerprintOf(params, nil),
		Model: mep.ModelHeader{Task: lp.Config().Task, Arch: lp.ArchTag(), NumParams: uint32(len(params)), DataSize: 64, Period: 10, DataConf: 0.5}}
	enc := func(m mep.Message) []byte {
		b, err := mep.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	offer := mep.Message{Type: mep.MsgOffer, From: other, Version: 1, Fingerprint: model.Fingerprint}
	for _, tc := range []struct {
		name   string
		from   ident.Peer
		header []byte
		vals   []float32
		want   error
	}{
		{"garbage", other, []byte{0xff, 1, 2}, nil, method.ErrWire},
		{"forged sender", liar, enc(offer), nil, method.ErrForged},
		{"offer with a payload", other, enc(offer), params, method.ErrPayload},
		{"model without its payload", other, enc(model), nil, method.ErrPayload},
		{"model of another length", other, enc(model), params[1:], method.ErrPayload},
		{"model with a Hessian it does not announce", other, enc(model), append(slices.Clone(params), params...), method.ErrPayload},
	} {
		if err := c.Step(tc.from, tc.header, tc.vals); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if err := c.Step(other, enc(model), params); err != nil {
		t.Errorf("a valid model refused: %v", err)
	}
	if st := c.Status(); st.ModelsReceived != 1 {
		t.Errorf("%+v: want the valid model received", st)
	}
	if err := c.Trained(nil, 0); err == nil {
		t.Error("Trained with no round outstanding accepted")
	}
}

// A neighbour sending sign-flipped models a hundred times the others' is
// clipped by the task's clipped-fedlay, its reputation falls and the
// guard drops it: out of the MEP's neighbours, its link denied for
// BanFor (OnDrop), its messages counted as "dropped" unread; after
// BanFor of ticks it is back at full trust.
func TestFedLayCoreDropsRepeatOffender(t *testing.T) {
	spec := fedlaySpec(nil)
	if spec.Aggregator != "clipped-fedlay" {
		t.Fatalf("the default rule is %q: this test is about clipped-fedlay", spec.Aggregator)
	}
	c := fedlayPeer(t, spec, 0, t.Logf)
	var denied []ident.Peer
	var deniedFor time.Duration
	c.cfg.OnDrop = func(id ident.Peer, d time.Duration) { denied, deniedFor = append(denied, id), d }
	honest := []ident.Peer{fedlayID(1), fedlayID(2), fedlayID(3)}
	liar := fedlayID(4)
	if err := c.SetPeers(append(slices.Clone(honest), liar)); err != nil {
		t.Fatal(err)
	}
	lp := c.Peer()
	rng := rand.New(rand.NewPCG(1, 2))
	vers := map[ident.Peer]uint64{}
	send := func(id ident.Peer, scale float32) {
		ps := slices.Clone(lp.Published())
		for i := range ps {
			ps[i] = scale * (ps[i] + 0.01*float32(rng.NormFloat64()))
		}
		vers[id]++
		stepModel(t, c, id, vers[id], ps)
	}
	round := func() { runRound(t, c) }
	neighbours := func() []ident.Peer {
		var ids []ident.Peer
		for _, n := range lp.Neighbors() {
			ids = append(ids, n.ID)
		}
		return ids
	}
	round() // the first model: nothing to aggregate yet
	rounds := 0
	for ; rounds < 10 && !c.Guard().Dropped(liar, c.Now()); rounds++ {
		for _, h := range honest {
			send(h, 1)
		}
		send(liar, -100)
		round()
	}
	d := c.Defence()
	if !c.Guard().Dropped(liar, c.Now()) || rounds > 5 || d.Clipped < 3 || d.Drops != 1 {
		t.Fatalf("after %d rounds: dropped %v, %d clipped, %d drops; want dropped within 5 rounds, >= 3 clipped, 1 drop",
			rounds, c.Guard().Dropped(liar, c.Now()), d.Clipped, d.Drops)
	}
	if !slices.Equal(denied, []ident.Peer{liar}) || deniedFor != c.Guard().BanFor() {
		t.Errorf("denied %v for %v, want the liar for %v", denied, deniedFor, c.Guard().BanFor())
	}
	if got, want := neighbours(), slices.SortedFunc(slices.Values(honest), ident.ComparePeers); !slices.Equal(got, want) {
		t.Errorf("MEP neighbours %v, want the honest %v", got, want)
	}
	for _, h := range honest {
		if lp.Reputation(h) < 1 {
			t.Errorf("honest %v lost reputation: %.2f", h, lp.Reputation(h))
		}
	}
	// Dropped: its messages are counted, not read (no error: not the wire's fault).
	if err := c.Step(liar, []byte{0}, nil); err != nil {
		t.Errorf("a dropped neighbour's message: %v", err)
	}
	if d := c.Defence(); d.Refused["dropped"] != 1 || len(d.Offenders) != 1 || d.Offenders[0].ID != liar.Hex() || d.Offenders[0].DroppedS <= 0 {
		t.Errorf("while dropped: refused %v, offenders %+v", d.Refused, d.Offenders)
	}
	// After the ban, on the core's ticks: back, at full trust.
	for range int(c.Guard().BanFor() / fedlayTick) {
		c.Tick()
		for trainReady(t, c) { // every output of the tick, trainings run
		}
	}
	if c.Guard().Dropped(liar, c.Now()) || lp.Reputation(liar) != 1 || !slices.Contains(neighbours(), liar) {
		t.Errorf("after %v: dropped %v, reputation %.2f, MEP neighbours %v", c.Guard().BanFor(),
			c.Guard().Dropped(liar, c.Now()), lp.Reputation(liar), neighbours())
	}
}

// With tiers each neighbour's MEP period is its tier's, and the core's
// own period is its tier's (LearnerConfig): what /status reports.
func TestFedLayCoreTiers(t *testing.T) {
	spec := fedlaySpec(func(s *task.Spec) { s.Tiers = true })
	c := fedlayPeer(t, spec, 0, t.Logf)
	base := TaskPeriod(spec, fedlayTick)
	var ids []ident.Peer
	for i := 1; i <= 12; i++ {
		ids = append(ids, fedlayID(i))
	}
	if err := c.SetPeers(ids); err != nil {
		t.Fatal(err)
	}
	periods := map[int]bool{}
	for _, n := range c.Peer().Neighbors() {
		if want := mep.CapacityOf(n.ID, base).Period; n.Period != want {
			t.Errorf("neighbour %v: period %d, its tier's %d", n.ID, n.Period, want)
		}
		periods[n.Period] = true
	}
	if len(periods) < 2 {
		t.Errorf("12 neighbours all of periods %v: the IDs should span tiers", periods)
	}
	own := mep.CapacityOf(fedlayID(0), base)
	if d := c.Defence(); d.Tier != own.Tier || d.Period != own.Period {
		t.Errorf("tier %v period %d, want %v %d", d.Tier, d.Period, own.Tier, own.Period)
	}
	if _, err := NewFedLayCore(fedlaySpec(func(s *task.Spec) { s.Method = "gossip" }), c.Peer(), fedlayTick, FedLayHooks{}); err == nil {
		t.Error("a FedLay core for a gossip task")
	}
}

// runAlone ticks a core with no peers, running its rounds, for ticks.
func runAlone(t *testing.T, c *FedLay, ticks int) {
	t.Helper()
	for range ticks {
		c.Tick()
		for c.HasReady() {
			if tr := c.Ready().Train; tr != nil {
				tr.Job.Run()
				if err := c.Trained(nil, tr.Job.Samples()); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// A peer resumed from its checkpoint (a reloaded tab: learn.Peer.Resume,
// the MEP's Restore) before its core is driven goes on from there: the
// core's model is the checkpoint's, its rounds count the ones before
// the restart, and max_rounds stops it at the same total.
func TestFedLayCoreResumes(t *testing.T) {
	spec := fedlaySpec(func(s *task.Spec) { s.MaxRounds = 3 })
	first := fedlayPeer(t, spec, 0, t.Logf)
	if err := first.SetPeers(nil); err != nil {
		t.Fatal(err)
	}
	period := first.Peer().Config().MEP.Period
	for first.Status().Round < 2 {
		runAlone(t, first, 1)
		if first.Peer().Now() > int64(10*period) {
			t.Fatal("no second round within 10 periods")
		}
	}
	ckpt, err := first.Peer().Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	again := fedlayPeer(t, spec, 0, t.Logf)
	if err := again.Peer().Resume(ckpt); err != nil {
		t.Fatal(err)
	}
	if err := again.SetPeers(nil); err != nil {
		t.Fatal(err)
	}
	if st := again.Status(); st.Round != 2 || st.Role == "done" || !slices.Equal(again.Model(), ckpt.Params) {
		t.Fatalf("resumed: %+v, model is the checkpoint's %v", st, slices.Equal(again.Model(), ckpt.Params))
	}
	runAlone(t, again, 5*period)
	if st := again.Status(); st.Round != 3 || st.Role != "done" || slices.Equal(again.Model(), ckpt.Params) {
		t.Errorf("after the restart: %+v; want one more round, then done", st)
	}
}

// stepModel hands core c version v of neighbour id's model ps, as a
// FedLay model message of c's task (64 samples, data confidence 0.3).
func stepModel(t *testing.T, c *FedLay, id ident.Peer, v uint64, ps []float32) {
	t.Helper()
	lp := c.Peer()
	m := mep.Message{Type: mep.MsgModel, From: id, Version: v, Fingerprint: mep.FingerprintOf(ps, nil),
		Model: mep.ModelHeader{Task: lp.Config().Task, Arch: lp.ArchTag(), NumParams: uint32(len(ps)), DataSize: 64,
			Period: uint32(lp.Config().MEP.Period), DataConf: 0.3}}
	h, err := mep.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Step(id, h, ps); err != nil {
		t.Fatalf("model of %v: %v", id, err)
	}
}

// runRound ticks core c until a round comes due (at most 10 periods),
// and runs and completes its training.
func runRound(t *testing.T, c *FedLay) {
	t.Helper()
	for range 10 * c.Peer().Config().MEP.Period {
		c.Tick()
		if trainReady(t, c) {
			return
		}
	}
	t.Fatal("no round came due")
}

// trainReady takes core c's outputs until none is left or one is a
// training, which it runs and completes; it reports whether it trained.
func trainReady(t *testing.T, c *FedLay) bool {
	t.Helper()
	for c.HasReady() {
		if tr := c.Ready().Train; tr != nil {
			tr.Job.Run()
			if err := c.Trained(nil, tr.Job.Samples()); err != nil {
				t.Fatal(err)
			}
			return true
		}
	}
	return false
}
