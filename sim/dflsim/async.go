package dflsim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/engine/modelcodec"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/sim/overlaynet"
	"github.com/peerlearn/peerlearn/sim/simnet"
	"github.com/peerlearn/peerlearn/theory/topology"
	"github.com/peerlearn/peerlearn/types/ident"
)

// AsyncRun runs peers asynchronously (FedLay's MEP) on simnet's virtual
// time. Each peer ticks every Tick with a random phase; a round's local
// training takes TrainTime times the peer's TrainScale of virtual time
// (its computation runs on the pool meanwhile and is applied when that
// time comes); MEP messages travel with the given latency.
type AsyncRun struct {
	Peers []*learn.Peer
	// TrainScale is each peer's training-time factor; nil means 1.
	TrainScale []float64
	Tick       time.Duration
	TrainTime  time.Duration
	// Duration is the virtual time of learning, from its start.
	Duration time.Duration
	// Latency is the one-way delay of every message (MEP and overlay).
	Latency simnet.Latency
	// Graph, if not nil, gives static neighbours (node i is Peers[i]);
	// nil builds the FedLay overlay with Overlay and takes each peer's
	// neighbours from its NDMP node, as they change.
	Graph   *topology.Graph
	Overlay OverlayConfig
	// Joins lists peers that are not there at the start but join later.
	Joins []Join
	Eval  Eval
	// EvalEvery is the virtual time between measurements.
	EvalEvery time.Duration
	// RoundUnit converts virtual time to Point.Round (e.g. the medium
	// tier's period); 0 means Tick.
	RoundUnit time.Duration
	Seed      uint64
	Pool      *Pool
	// Ctx, if not nil, is checked between measurements.
	Ctx      context.Context
	Progress io.Writer
	Label    string
	// Logf, if not nil, receives the first few harness errors.
	Logf func(format string, args ...any)
	// Codec, if its Kind is not 0, is how models travel (a task's
	// codec, engine/modelcodec): a sender and receiver end per directed
	// link, the network carries and counts the encoded payload, and the
	// receiving peer steps the decoded copy. Acknowledgements and resets
	// reach the sender when the model arrives (their 33 bytes are not
	// counted). A lossy codec needs every peer's MEP to take lossy copies
	// (mep.Config.LossyWire, as node.LearnerConfig sets it).
	Codec modelcodec.Config
	// AfterTrain, if not nil, is called with a peer's index whenever its
	// local training has been applied (learn.Peer.Finish): a driver reads
	// the round's published model there, not only at the measurements.
	AfterTrain func(i int)
}

// wireMsg is an MEP message on the simulated network: with a codec, its
// parameters travel as payload (and Params is nil until decoded).
type wireMsg struct {
	m       mep.Message
	payload []byte
}

// OverlayConfig configures the FedLay overlay of an AsyncRun.
type OverlayConfig struct {
	// Spaces is L: at most 2L neighbours.
	Spaces int
	// Tick is the NDMP tick (heartbeats are every 5 ticks by default).
	Tick time.Duration
	// JoinBatch peers join the initial overlay at a time, each batch
	// waiting up to JoinLimit for a correct overlay.
	JoinBatch int
	JoinLimit time.Duration
}

// Join is a late joiner: Peers[Peer] joins At (virtual time after the
// start of learning), through a random peer already there.
type Join struct {
	Peer int
	At   time.Duration
}

// AsyncResult is what an AsyncRun measured.
type AsyncResult struct {
	Points []Point
	// Start is the virtual time learning started (after the overlay was
	// built).
	Start time.Duration
	// OverlayBytes and OverlayMessages total the NDMP traffic of all
	// nodes (zero with a static graph); Correctness is the overlay's
	// correctness at the end.
	OverlayBytes, OverlayMessages uint64
	Correctness                   float64
	// StepErrors counts MEP messages a peer dropped (from a peer that
	// was no longer its neighbour, refused models, ...).
	StepErrors int
	// Events is the number of simulation events run.
	Events uint64
	// HarnessErrors counts inputs a peer or the network refused from the
	// harness itself (a bug if not 0; Run then fails).
	HarnessErrors int
}

type asyncSim struct {
	r       AsyncRun
	sched   *simnet.Scheduler
	cluster *overlaynet.Cluster
	net     *simnet.Network[ident.Peer, wireMsg]
	codecs  *modelcodec.Links[int]
	index   map[ident.Peer]int
	started []bool
	active  []*learn.Peer
	nbrs    [][]ident.Peer
	rng     *rand.Rand
	res     AsyncResult
	errs    int
}

func (r AsyncRun) validate() error {
	switch {
	case len(r.Peers) == 0 || r.Pool == nil:
		return fmt.Errorf("%w: asynchronous run of %d peers", ErrConfig, len(r.Peers))
	case r.Tick <= 0 || r.TrainTime < 0 || r.Duration <= 0 || r.EvalEvery <= 0:
		return fmt.Errorf("%w: tick %v, train time %v, duration %v, eval every %v", ErrConfig, r.Tick, r.TrainTime, r.Duration, r.EvalEvery)
	case r.TrainScale != nil && len(r.TrainScale) != len(r.Peers):
		return fmt.Errorf("%w: %d training scales for %d peers", ErrConfig, len(r.TrainScale), len(r.Peers))
	case r.Graph != nil && r.Graph.N() != len(r.Peers):
		return fmt.Errorf("%w: graph of %d nodes for %d peers", ErrConfig, r.Graph.N(), len(r.Peers))
	case r.Graph == nil && (r.Overlay.Spaces < 1 || r.Overlay.Tick <= 0 || r.Overlay.JoinBatch < 1 || r.Overlay.JoinLimit <= 0):
		return fmt.Errorf("%w: overlay %+v", ErrConfig, r.Overlay)
	}
	for _, j := range r.Joins {
		if j.Peer < 0 || j.Peer >= len(r.Peers) || j.At < 0 || j.At >= r.Duration {
			return fmt.Errorf("%w: join %+v", ErrConfig, j)
		}
	}
	if k := r.Codec.Kind; k != 0 && k != modelcodec.F32 {
		for i, p := range r.Peers {
			if !p.Config().MEP.LossyWire {
				return fmt.Errorf("%w: codec %v but peer %d's MEP checks fingerprints of exact copies (mep.Config.LossyWire)", ErrConfig, r.Codec, i)
			}
		}
	}
	return r.Eval.validate()
}

// Run builds the network (the overlay, if any), runs Duration of virtual
// time and returns the measurements.
func (r AsyncRun) Run() (*AsyncResult, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	if r.RoundUnit <= 0 {
		r.RoundUnit = r.Tick
	}
	s := &asyncSim{
		r: r, index: map[ident.Peer]int{}, rng: rand.New(rand.NewPCG(r.Seed, 0x6173796e63)),
		started: make([]bool, len(r.Peers)), active: make([]*learn.Peer, len(r.Peers)),
		nbrs: make([][]ident.Peer, len(r.Peers)),
	}
	for i, p := range r.Peers {
		s.index[p.Config().ID] = i
	}
	if r.Codec.Kind != 0 {
		var err error
		if s.codecs, err = modelcodec.NewLinks[int](r.Codec); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	late := map[int]bool{}
	for _, j := range r.Joins {
		late[j.Peer] = true
	}
	var initial []int
	for i := range r.Peers {
		if !late[i] {
			initial = append(initial, i)
		}
	}
	if err := s.build(initial); err != nil {
		return nil, err
	}
	net, err := simnet.New[ident.Peer](s.sched, rand.New(rand.NewPCG(r.Seed, 0x6d6570)), simnet.Config[wireMsg]{
		Latency: r.Latency, FIFO: true,
		Size: func(w wireMsg) int {
			c, p := learn.WireSize(w.m)
			if w.payload != nil {
				p = int64(len(w.payload)) + 4*int64(len(w.m.Hessian))
			}
			return int(c + p)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	s.net = net
	t0 := s.sched.Now()
	s.res.Start = t0
	for _, i := range initial {
		if err := s.start(i); err != nil {
			return nil, err
		}
	}
	for _, j := range r.Joins {
		s.sched.After(j.At, func() { s.join(j.Peer) })
	}
	var probes []*probe
	bar := progress.New(r.Progress, r.Label, int64(r.Duration/r.EvalEvery)+1)
	for at := time.Duration(0); at <= r.Duration; at += r.EvalEvery {
		if err := ctxErr(r.Ctx); err != nil {
			bar.Finish()
			return nil, err
		}
		s.sched.RunUntil(t0 + at)
		probes = append(probes, measure(r.Pool, s.active, r.Eval, Point{
			Time: at.Seconds(), Round: float64(at) / float64(r.RoundUnit), WireBytes: s.wireBytes(),
		}))
		bar.Add(1)
	}
	bar.Finish()
	for _, pr := range probes {
		pt, err := pr.wait()
		if err != nil {
			return nil, err
		}
		s.res.Points = append(s.res.Points, pt)
	}
	s.res.Events = s.sched.Executed()
	s.res.HarnessErrors = s.errs
	if s.errs > 0 {
		return &s.res, fmt.Errorf("%w: %d harness errors (see Logf)", ErrRun, s.errs)
	}
	if s.cluster != nil {
		tot := s.cluster.Network().Total()
		s.res.OverlayBytes, s.res.OverlayMessages = tot.BytesSent, tot.Sent
		s.res.Correctness = s.cluster.Correctness().Fraction()
	}
	return &s.res, nil
}

// build creates the scheduler and, without a static graph, grows the
// overlay of the initial peers.
func (s *asyncSim) build(initial []int) error {
	if s.r.Graph != nil {
		s.sched = simnet.NewScheduler()
		return nil
	}
	cc := overlaynet.DefaultClusterConfig()
	cc.Seed, cc.Tick = s.r.Seed, s.r.Overlay.Tick
	cc.Overlay.Spaces = s.r.Overlay.Spaces
	cc.Net.Latency = s.r.Latency
	c, err := overlaynet.NewCluster(cc)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	s.cluster, s.sched = c, c.Scheduler()
	ids := make([]ident.Peer, len(initial))
	for k, i := range initial {
		ids[k] = s.r.Peers[i].Config().ID
	}
	if err := c.Grow(ids, s.r.Overlay.JoinBatch, s.rng, s.r.Overlay.JoinLimit); err != nil {
		return fmt.Errorf("%w: building the overlay: %w", ErrRun, err)
	}
	return nil
}

// start attaches peer i to the MEP network and starts its ticks.
func (s *asyncSim) start(i int) error {
	p := s.r.Peers[i]
	_, err := s.net.Attach(p.Config().ID, simnet.HandlerFunc[ident.Peer, wireMsg](func(from ident.Peer, w wireMsg) {
		m, ok := s.decode(from, i, w)
		if !ok {
			s.res.StepErrors++
			return
		}
		if err := p.Step(m); err != nil {
			s.res.StepErrors++
		}
		s.flush(i)
	}))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRun, err)
	}
	s.started[i], s.active[i] = true, p
	if s.r.Graph != nil {
		s.setStatic(i)
		for _, j := range s.r.Graph.Neighbors(i) {
			if s.started[j] {
				s.setStatic(j)
			}
		}
	}
	phase := time.Duration(s.rng.Int64N(int64(s.r.Tick))) + 1
	var tick func()
	tick = func() {
		if s.cluster != nil {
			s.refresh(i)
		}
		if err := p.Tick(); err != nil {
			s.fail(err)
		}
		s.flush(i)
		s.sched.After(s.r.Tick, tick)
	}
	s.sched.After(phase, tick)
	return nil
}

// join brings a late peer in: into the overlay through a random peer
// already there (or into its static neighbourhood), and starts it.
func (s *asyncSim) join(i int) {
	if s.cluster != nil {
		var live []int
		for j, ok := range s.started {
			if ok {
				live = append(live, j)
			}
		}
		id := s.r.Peers[i].Config().ID
		via := s.r.Peers[live[s.rng.IntN(len(live))]].Config().ID
		if _, err := s.cluster.AddNode(id); err != nil {
			s.fail(err)
			return
		}
		if err := s.cluster.Join(id, via); err != nil {
			s.fail(err)
			return
		}
	}
	if err := s.start(i); err != nil {
		s.fail(err)
	}
}

// setStatic sets peer i's neighbours to its started graph neighbours.
func (s *asyncSim) setStatic(i int) {
	var ns []mep.Neighbor
	for _, j := range s.r.Graph.Neighbors(i) {
		if s.started[j] {
			ns = append(ns, s.neighbor(j))
		}
	}
	if err := s.r.Peers[i].SetNeighbors(ns); err != nil {
		s.fail(err)
	}
}

// refresh gives peer i its overlay node's current neighbours, if changed.
func (s *asyncSim) refresh(i int) {
	ids := s.cluster.Node(s.r.Peers[i].Config().ID).Neighbors()
	if slices.Equal(ids, s.nbrs[i]) {
		return
	}
	s.nbrs[i] = ids
	ns := make([]mep.Neighbor, 0, len(ids))
	for _, id := range ids {
		if j, ok := s.index[id]; ok && s.started[j] {
			ns = append(ns, s.neighbor(j))
		}
	}
	if err := s.r.Peers[i].SetNeighbors(ns); err != nil {
		s.fail(err)
	}
}

// neighbor describes peer j to its neighbours. Its period is read from
// the harness's directory: a deployment would advertise it in the first
// MEP or NDMP message.
func (s *asyncSim) neighbor(j int) mep.Neighbor {
	c := s.r.Peers[j].Config()
	return mep.Neighbor{ID: c.ID, Period: c.MEP.Period}
}

// flush sends what peer i wants sent and starts its round, if any: the
// work runs on the pool now and is applied after its training time.
func (s *asyncSim) flush(i int) {
	p := s.r.Peers[i]
	if !p.HasReady() {
		return
	}
	rd := p.Ready()
	for _, m := range rd.Messages {
		w, err := s.encode(i, m)
		if err == nil {
			err = s.net.Send(p.Config().ID, m.To, w)
		}
		if err != nil {
			s.fail(err)
		}
	}
	if w := rd.Work; w != nil {
		fut := s.r.Pool.Run(w)
		scale := 1.0
		if s.r.TrainScale != nil {
			scale = s.r.TrainScale[i]
		}
		s.sched.After(time.Duration(float64(s.r.TrainTime)*scale), func() {
			fut.Wait()
			_ = p.Finish(w) // a failed round is counted in the peer's metrics
			if s.r.AfterTrain != nil {
				s.r.AfterTrain(i)
			}
			s.flush(i)
		})
	}
}

// fail records a harness error (it should not happen).
func (s *asyncSim) fail(err error) {
	s.errs++
	if s.errs <= 5 && s.r.Logf != nil {
		s.r.Logf("dflsim: %v", err)
	}
}

// encode puts peer i's message on the wire: with a codec, a model's
// parameters as the link's payload.
func (s *asyncSim) encode(i int, m mep.Message) (wireMsg, error) {
	if s.codecs == nil || m.Type != mep.MsgModel {
		return wireMsg{m: m}, nil
	}
	j, ok := s.index[m.To]
	if !ok {
		return wireMsg{}, fmt.Errorf("%w: a model to an unknown peer %v", ErrRun, m.To)
	}
	payload, _, err := s.codecs.Sender(i, j).Encode(m.Params)
	if err != nil {
		return wireMsg{}, err
	}
	m.Params = nil
	return wireMsg{m: m, payload: payload}, nil
}

// decode takes a message off the wire at peer i: a payload is decoded by
// the link's receiver, and the sender hears the ack (or, for a delta
// against a copy the receiver does not hold, the reset) at once. false:
// the model was refused.
func (s *asyncSim) decode(from ident.Peer, i int, w wireMsg) (mep.Message, bool) {
	m := w.m
	if w.payload == nil {
		return m, true
	}
	f, ok := s.index[from]
	if !ok {
		return m, false
	}
	params, ack, err := s.codecs.Receiver(f, i).Decode(w.payload, int(m.Model.NumParams))
	sender := s.codecs.Sender(f, i)
	if err != nil {
		if errors.Is(err, modelcodec.ErrUnknownReference) {
			sender.Reset()
		}
		return m, false
	}
	if ack != (nn.Digest{}) {
		sender.Ack(ack)
	}
	m.Params = params
	return m, true
}

// wireBytes is the mean bytes a peer has sent on the MEP network so far
// (control messages and payloads, as encoded).
func (s *asyncSim) wireBytes() float64 {
	if s.net == nil {
		return 0
	}
	var sum float64
	live := 0
	for i, p := range s.r.Peers {
		if s.started[i] {
			sum += float64(s.net.Counters(p.Config().ID).BytesSent)
			live++
		}
	}
	if live == 0 {
		return 0
	}
	return sum / float64(live)
}
