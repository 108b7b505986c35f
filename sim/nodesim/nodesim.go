package nodesim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/sim/simnet"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Config describes a simulation.
type Config struct {
	// Seed makes the run reproducible: phases, latencies, loss, contacts.
	Seed uint64
	// Tick is the virtual time between two Ticks of a peer.
	Tick time.Duration
	// Overlay is every peer's overlay configuration (its Rand is each
	// peer's own, seeded from Seed).
	Overlay overlay.Config
	// Registrar is every peer's (Servers and Rand are the simulation's).
	Registrar node.RegistrarConfig
	// Net describes the links.
	Net simnet.Config[Msg]
	// Contacts is how many live peers a welcome lists (at most).
	Contacts int
	// DialDelay is a registration's round trip to the server.
	DialDelay time.Duration
	// LinkTimeout is how long after a peer crashed its links close.
	LinkTimeout time.Duration
	// BootstrapWindow is how long after a registration the server relays
	// the connection offers between a peer and its welcome's contacts
	// (the signalling server's BootstrapTimeout). A link to any other
	// peer is signalled through the overlay: both ends need an open link.
	BootstrapWindow time.Duration
	// Logf, if not nil, receives each peer's log lines.
	Logf func(id ident.Peer, line string)
	// Method, if not nil, builds peer id's method core (a learning peer);
	// its trainings run at once and take TrainTime of virtual time (0:
	// none; a peer killed meanwhile never finishes one).
	Method    func(id ident.Peer) (*node.Method, error)
	TrainTime time.Duration
}

// DefaultConfig: 100 ms ticks, L = 2, 10-30 ms one-way latency, unordered
// links (as rtc's control channel), three contacts a welcome, a 50 ms
// registration, links that close 5 s after a crash, re-bootstrap after
// 5 s, the bridge every minute when a split is suspected.
func DefaultConfig() Config {
	ov := overlay.DefaultConfig()
	ov.Spaces = 2
	net := simnet.DefaultConfig[Msg]()
	net.Latency, net.FIFO = simnet.Uniform{Min: 10 * time.Millisecond, Max: 30 * time.Millisecond}, false
	net.Size = func(m Msg) int { return len(m.Data) + len(m.Header) + 4*len(m.Params) }
	return Config{
		Seed: 1, Tick: 100 * time.Millisecond, Overlay: ov,
		Registrar: node.RegistrarConfig{RebootstrapAfter: 5 * time.Second, BridgeEvery: time.Minute},
		Net:       net, Contacts: 3, DialDelay: 50 * time.Millisecond, LinkTimeout: 5 * time.Second,
		BootstrapWindow: 30 * time.Second,
	}
}

// Kind says what a Msg carries.
type Kind uint8

const (
	KindOverlay Kind = iota + 1
	KindShare
	KindModel
)

// Msg is what the simulated links carry: an overlay message or push-sum
// share (Data), or a method message (Header, and Params for a model).
type Msg struct {
	Kind   Kind
	Data   []byte
	Header []byte
	Params []float32
}

// server is the signalling server's in-memory stand-in.
const server = "sim://signal"

// epoch is virtual time zero on the peers' clocks.
var epoch = time.Unix(1_700_000_000, 0)

// Sim runs node.Node peers on a simnet.Network. Not safe for concurrent
// use.
type Sim struct {
	cfg   Config
	sched *simnet.Scheduler
	net   *simnet.Network[ident.Peer, Msg]
	rng   *rand.Rand
	peers map[ident.Peer]*peer
	order []ident.Peer // in order of Add
	links map[[2]ident.Peer]bool
	// denied holds the pairs whose link a peer closed and refuses until
	// the time given (node.Deny: FedLay's guard dropped the other).
	denied map[[2]ident.Peer]time.Duration
	// Denials lists each (by, whom) a peer's core asked to deny.
	Denials [][2]ident.Peer
	// Dials counts registrations after the first, by why; Errors the
	// core's refusals of the simulation's own events (none expected).
	Dials  map[node.Why]int
	Errors []error
	// Unsignalled counts messages lost because their link could not be
	// signalled (Config.BootstrapWindow) or its sender is stopped.
	Unsignalled int
}

type peer struct {
	n     *node.Node
	ep    simnet.Endpoint[ident.Peer, Msg]
	alive bool
	// frozen: the process is stopped (Freeze): it ticks and hears
	// nothing; the events of its own links and dials wait in pending
	// for Thaw, as a stopped process's sockets keep them.
	frozen  bool
	pending []node.Event
	// contacts are its latest welcome's, whose links the server signals
	// until windowEnds.
	contacts   []ident.Peer
	windowEnds time.Duration
}

// New returns an empty simulation.
func New(cfg Config) (*Sim, error) {
	sched := simnet.NewScheduler()
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6e6f6465))
	net, err := simnet.New[ident.Peer, Msg](sched, rand.New(rand.NewPCG(cfg.Seed, 1)), cfg.Net)
	if err != nil {
		return nil, err
	}
	return &Sim{cfg: cfg, sched: sched, net: net, rng: rng, peers: map[ident.Peer]*peer{},
		links: map[[2]ident.Peer]bool{}, denied: map[[2]ident.Peer]time.Duration{}, Dials: map[node.Why]int{}}, nil
}

// Now is the virtual time.
func (s *Sim) Now() time.Duration { return s.sched.Now() }

// Run runs virtual time on by d.
func (s *Sim) Run(d time.Duration) { s.sched.RunFor(d) }

// ID is the ID of the i-th peer of a simulation with seed.
func ID(seed uint64, i int) ident.Peer {
	return ident.PeerFromPublicKey(fmt.Appendf(nil, "nodesim %d %d", seed, i))
}

// welcome returns up to cfg.Contacts live peers other than self, drawn
// from the simulation's generator.
func (s *Sim) welcome(self ident.Peer) []ident.Peer {
	var live []ident.Peer
	for _, id := range s.order {
		if p := s.peers[id]; p.alive && !p.frozen && id != self {
			live = append(live, id)
		}
	}
	s.rng.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
	return live[:min(len(live), s.cfg.Contacts)]
}

// Add starts the i-th peer now: it registers (its welcome lists live
// peers to join through; none: it founds an overlay) and ticks from a
// random phase on.
func (s *Sim) Add(i int) (ident.Peer, error) {
	id := ID(s.cfg.Seed, i)
	if _, ok := s.peers[id]; ok {
		return id, fmt.Errorf("nodesim: peer %d added twice", i)
	}
	contacts := s.welcome(id)
	cfg := node.Config{ID: id, Overlay: s.cfg.Overlay, Registrar: s.cfg.Registrar, Server: server, Contacts: contacts}
	cfg.Overlay.Rand = rand.New(rand.NewPCG(s.cfg.Seed, id.Seed()))
	cfg.Registrar.Servers = []string{server}
	cfg.Registrar.Rand = rand.New(rand.NewPCG(s.cfg.Seed, id.Seed()+1))
	if s.cfg.Method != nil {
		m, err := s.cfg.Method(id)
		if err != nil {
			return id, err
		}
		cfg.Method = m
	}
	n, err := node.New(cfg, epoch.Add(s.Now()))
	if err != nil {
		return id, err
	}
	p := &peer{n: n, alive: true, contacts: contacts, windowEnds: s.Now() + s.cfg.BootstrapWindow}
	ep, err := s.net.Attach(id, simnet.HandlerFunc[ident.Peer, Msg](func(from ident.Peer, m Msg) { s.deliver(id, from, m) }))
	if err != nil {
		return id, err
	}
	p.ep = ep
	s.peers[id] = p
	s.order = append(s.order, id)
	s.carryOut(id)
	phase := time.Duration(s.rng.Int64N(int64(s.cfg.Tick)))
	var tick func()
	tick = func() {
		if !p.alive {
			return
		}
		if !p.frozen {
			p.n.Tick(epoch.Add(s.Now()))
			s.carryOut(id)
		}
		s.sched.After(s.cfg.Tick, tick)
	}
	s.sched.After(phase, tick)
	return id, nil
}

// Kill crashes a peer without a word: its messages are lost from now on
// and its links close LinkTimeout later at the other ends.
func (s *Sim) Kill(id ident.Peer) error {
	p := s.peers[id]
	if p == nil || !p.alive {
		return fmt.Errorf("nodesim: no live peer %v", id)
	}
	p.alive = false
	if err := s.net.Crash(id); err != nil {
		return err
	}
	s.closeLinks(id)
	return nil
}

// Disconnect cuts peer id off the network (a partition of it alone, as a
// laptop that lost its network) and closes its links at both ends
// LinkTimeout later; Heal ends it.
func (s *Sim) Disconnect(id ident.Peer) error {
	if p := s.peers[id]; p == nil || !p.alive {
		return fmt.Errorf("nodesim: no live peer %v", id)
	}
	if err := s.net.Partition([]ident.Peer{id}); err != nil {
		return err
	}
	s.closeLinks(id)
	return nil
}

// closeLinks closes id's links LinkTimeout from now, at the live ends.
func (s *Sim) closeLinks(id ident.Peer) {
	for _, other := range s.order {
		k := key(id, other)
		if !s.links[k] {
			continue
		}
		s.sched.After(s.cfg.LinkTimeout, func() {
			if !s.links[k] {
				return
			}
			delete(s.links, k)
			for _, ends := range [2][2]ident.Peer{{id, other}, {other, id}} {
				if q := s.peers[ends[0]]; q.alive {
					s.step(ends[0], node.LinkDown{Peer: ends[1]})
				}
			}
		})
	}
}

// Freeze stops peer id's process (SIGSTOP: a laptop that sleeps, a phone
// that freezes a background tab): it neither ticks nor hears a message
// (those sent to it are lost), and the others close its links
// LinkTimeout later. Thaw starts it again: it gets what its own links
// and dials did meanwhile (the links closed, a training or registration
// finished), then ticks on, its clock as far on as it was frozen.
func (s *Sim) Freeze(id ident.Peer) error {
	p := s.peers[id]
	if p == nil || !p.alive || p.frozen {
		return fmt.Errorf("nodesim: no running peer %v", id)
	}
	p.frozen = true
	s.closeLinks(id)
	return nil
}

// Thaw starts a frozen peer again (Freeze).
func (s *Sim) Thaw(id ident.Peer) error {
	p := s.peers[id]
	if p == nil || !p.alive || !p.frozen {
		return fmt.Errorf("nodesim: no frozen peer %v", id)
	}
	p.frozen = false
	evs := p.pending
	p.pending = nil
	for _, ev := range evs {
		s.step(id, ev)
	}
	return nil
}

// Partition cuts the network into groups (simnet.Network.Partition); the
// links stay up, their messages are lost. Heal ends it.
func (s *Sim) Partition(groups ...[]ident.Peer) error { return s.net.Partition(groups...) }
func (s *Sim) Heal()                                  { s.net.Heal() }

// Live is the live peers, in order of Add.
func (s *Sim) Live() []ident.Peer {
	var out []ident.Peer
	for _, id := range s.order {
		if s.peers[id].alive {
			out = append(out, id)
		}
	}
	return out
}

// Node is a peer's core, for reading.
func (s *Sim) Node(id ident.Peer) *node.Node { return s.peers[id].n }

// Overlay measures the live peers' tables against the correct overlay of
// the given IDs (Live() for the whole network).
func (s *Sim) Overlay(ids []ident.Peer) overlay.Correctness {
	tables := map[ident.Peer]overlay.Table{}
	for _, id := range ids {
		tables[id] = s.peers[id].n.Table()
	}
	return overlay.Check(tables, s.cfg.Overlay.Spaces)
}

func key(a, b ident.Peer) [2]ident.Peer {
	if slices.Compare(a[:], b[:]) > 0 {
		a, b = b, a
	}
	return [2]ident.Peer{a, b}
}

// step hands peer id an event and carries out what it wants done (a
// frozen peer gets it when it thaws).
func (s *Sim) step(id ident.Peer, ev node.Event) {
	if p := s.peers[id]; p.frozen {
		p.pending = append(p.pending, ev)
		return
	}
	if err := s.peers[id].n.Step(ev); err != nil {
		s.Errors = append(s.Errors, err)
	}
	s.carryOut(id)
}

// signalled reports whether a link between a and b can be signalled:
// through the server inside a bootstrap window of one whose welcome
// listed the other, or through the overlay, which needs an open link at
// both ends (an approximation of a route between them).
func (s *Sim) signalled(a, b ident.Peer) bool {
	now := s.Now()
	for _, e := range [2][2]ident.Peer{{a, b}, {b, a}} {
		if p := s.peers[e[0]]; now < p.windowEnds && slices.Contains(p.contacts, e[1]) {
			return true
		}
	}
	return s.linked(a) && s.linked(b)
}

// linked reports whether peer id has an open link.
func (s *Sim) linked(id ident.Peer) bool {
	for _, o := range s.order {
		if o != id && s.links[key(id, o)] {
			return true
		}
	}
	return false
}

// deliver hands peer to a message from from; the first between the two
// opens their link at both ends.
func (s *Sim) deliver(to, from ident.Peer, m Msg) {
	p := s.peers[to]
	if !p.alive || p.frozen {
		return
	}
	if s.Now() < s.denied[key(to, from)] {
		return // the transport refuses the denied peer's link
	}
	if k := key(to, from); !s.links[k] {
		if q := s.peers[from]; !s.signalled(from, to) || !q.alive || q.frozen {
			s.Unsignalled++ // a stopped sender cannot answer the offer either
			return
		}
		s.links[k] = true
		s.step(from, node.LinkUp{Peer: to})
		s.step(to, node.LinkUp{Peer: from})
	}
	switch m.Kind {
	case KindOverlay:
		s.step(to, node.OverlayMessage{From: from, Data: m.Data})
	case KindShare:
		s.step(to, node.PushSumShare{From: from, Data: m.Data})
	case KindModel:
		s.step(to, node.ModelMessage{From: from, Header: m.Header, Params: m.Params})
	}
}

// carryOut does what peer id's Ready asks, as netpeer does over WebRTC.
func (s *Sim) carryOut(id ident.Peer) {
	p := s.peers[id]
	for p.alive && p.n.HasReady() {
		rd := p.n.Ready()
		if s.cfg.Logf != nil {
			for _, l := range rd.Logs {
				s.cfg.Logf(id, l.Text)
			}
		}
		for _, e := range rd.Overlay {
			s.send(p, e.To, Msg{Kind: KindOverlay, Data: e.Data})
		}
		for _, sh := range rd.Shares {
			s.send(p, sh.To, Msg{Kind: KindShare, Data: sh.Data})
		}
		for _, m := range rd.ModelSends {
			var params []float32
			if m.Params != nil {
				params = append(slices.Clone(m.Params), m.Rest...)
			}
			s.send(p, m.To, Msg{Kind: KindModel, Header: m.Header, Params: params})
		}
		for _, d := range rd.Denies {
			s.Denials = append(s.Denials, [2]ident.Peer{id, d.Peer})
			k := key(id, d.Peer)
			s.denied[k] = s.Now() + d.For
			if s.links[k] {
				delete(s.links, k)
				s.step(id, node.LinkDown{Peer: d.Peer})
				if q := s.peers[d.Peer]; q != nil && q.alive {
					s.step(d.Peer, node.LinkDown{Peer: id})
				}
			}
		}
		for _, d := range rd.Dials {
			s.Dials[d.Why]++
			seq, why := d.Seq, d.Why
			s.sched.After(s.cfg.DialDelay, func() {
				if p.alive {
					p.contacts, p.windowEnds = s.welcome(id), s.Now()+s.cfg.BootstrapWindow
					s.step(id, node.Registered{Seq: seq, Outcome: node.Outcome{Why: why, URL: server, Contacts: p.contacts}})
				}
			})
		}
		if rd.Train != nil {
			job := rd.Train
			job.Run()
			if s.cfg.TrainTime == 0 {
				s.trained(id, job)
				continue
			}
			s.sched.After(s.cfg.TrainTime, func() {
				if p.alive {
					s.step(id, node.TrainDone{Job: job, Elapsed: s.cfg.TrainTime})
				}
			})
		}
	}
}

// trained hands peer id its finished training.
func (s *Sim) trained(id ident.Peer, job method.Job) {
	if err := s.peers[id].n.Step(node.TrainDone{Job: job, Elapsed: s.cfg.TrainTime}); err != nil {
		s.Errors = append(s.Errors, err)
	}
}

// send sends m from p (a live peer: simnet refuses only a crashed or
// unknown sender).
func (s *Sim) send(p *peer, to ident.Peer, m Msg) {
	if err := p.ep.Send(to, m); err != nil {
		s.Errors = append(s.Errors, err)
	}
}
