package overlaynet

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/peerlearn/peerlearn/sim/simnet"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// ClusterConfig describes a simulated overlay.
type ClusterConfig struct {
	// Seed makes the run reproducible: node timer phases, latencies, loss.
	Seed uint64
	// Tick is the virtual time between two Ticks of a node.
	Tick time.Duration
	// Overlay is every node's configuration; its Rand is ignored (each node
	// gets its own, seeded from Seed).
	Overlay overlay.Config
	// Net describes the links. Messages travel encoded (overlay.Marshal),
	// so Size is len.
	Net simnet.Config[[]byte]
	// Admission, if not nil, lets AddAdmittedNode mint tokens
	// (admission.go); nil: H(id, i) placement, as before.
	Admission *Admission
}

// DefaultClusterConfig: 100 ms ticks, default overlay (L = 5), reliable
// links with 10 ms delay, not kept in order: the real peers carry overlay
// messages on an unordered data channel (peer/rtc ctlchannel.go), where
// each message takes its own time.
func DefaultClusterConfig() ClusterConfig {
	net := simnet.DefaultConfig[[]byte]()
	net.FIFO = false
	return ClusterConfig{
		Seed:    1,                      // any fixed value: runs repeat exactly
		Tick:    100 * time.Millisecond, // the tick overlay.DefaultConfig assumes
		Overlay: overlay.DefaultConfig(),
		Net:     net,
	}
}

// Cluster runs overlay Nodes on a simulated simnet.Network, each ticking every
// Tick of virtual time with its own random phase. Its methods inject
// joins, leaves and crashes, run virtual time, and measure the overlay
// from outside (correctness against the live membership, message
// counts). Not safe for concurrent use.
type Cluster struct {
	cfg     ClusterConfig
	sched   *simnet.Scheduler
	net     *simnet.Network[ident.Peer, []byte]
	rng     *rand.Rand
	members map[ident.Peer]*member
	order   []ident.Peer // in order of AddNode

	// OnDeliver, if set, is called for every Route payload delivered.
	// OnMessage, if set, sees every message a live node receives, before
	// the node does (for tracing). Both run inside the event being
	// processed, one at a time; they may inject (Join, Route, Crash, ...)
	// but must not run time (RunFor, RunUntil, Grow).
	OnDeliver func(Delivered)
	OnMessage func(at time.Duration, m overlay.Message)
	errs      []error
	nerrs     int
	tokens    map[ident.Peer]admission.Token // minted (admission.go)
}

type member struct {
	node *overlay.Node
	ep   simnet.Endpoint[ident.Peer, []byte]
	down bool // crashed or left
	// stalledUntil: the node's process is stopped until then (Stall):
	// no ticks, and what reaches it waits to be read.
	stalledUntil time.Duration
}

// Delivered is a Route payload delivered in the simulation.
type Delivered struct {
	At time.Duration
	To ident.Peer
	overlay.Delivery
}

// NewCluster returns an empty cluster at virtual time 0.
func NewCluster(cfg ClusterConfig) (*Cluster, error) {
	if cfg.Tick <= 0 {
		return nil, fmt.Errorf("%w: tick %v", simnet.ErrInvalid, cfg.Tick)
	}
	probe := cfg.Overlay
	probe.Rand = rand.New(rand.NewPCG(0, 0))
	if err := probe.Validate(); err != nil {
		return nil, err
	}
	cfg.Net.Size = func(b []byte) int { return len(b) }
	sched := simnet.NewScheduler()
	net, err := simnet.New[ident.Peer](sched, rand.New(rand.NewPCG(cfg.Seed, 1)), cfg.Net)
	if err != nil {
		return nil, err
	}
	return &Cluster{
		cfg: cfg, sched: sched, net: net,
		rng:     rand.New(rand.NewPCG(cfg.Seed, 2)),
		members: map[ident.Peer]*member{},
	}, nil
}

// Scheduler returns the cluster's scheduler.
func (c *Cluster) Scheduler() *simnet.Scheduler { return c.sched }

// Network returns the cluster's network (for partitions, link latencies
// and per-node traffic counters).
func (c *Cluster) Network() *simnet.Network[ident.Peer, []byte] { return c.net }

// Now returns the virtual time.
func (c *Cluster) Now() time.Duration { return c.sched.Now() }

// Spaces returns L.
func (c *Cluster) Spaces() int { return c.cfg.Overlay.Spaces }

// AddNode creates a node, attaches it and starts its ticks. Alone it is
// the founder of an overlay; call Join to make it join one.
func (c *Cluster) AddNode(id ident.Peer) (*overlay.Node, error) {
	if _, ok := c.members[id]; ok {
		return nil, fmt.Errorf("%w: %v", simnet.ErrDuplicate, id)
	}
	return c.addNode(id, c.cfg.Overlay)
}

func (c *Cluster) addNode(id ident.Peer, cfg overlay.Config) (*overlay.Node, error) {
	if _, ok := c.members[id]; ok {
		return nil, fmt.Errorf("%w: %v", simnet.ErrDuplicate, id)
	}
	cfg.Rand = c.nodeRand()
	n, err := overlay.NewNode(id, cfg)
	if err != nil {
		return nil, err
	}
	m := &member{node: n}
	m.ep, err = c.net.Attach(id, simnet.HandlerFunc[ident.Peer, []byte](func(from ident.Peer, b []byte) {
		c.receive(m, from, b)
	}))
	if err != nil {
		return nil, err
	}
	c.members[id] = m
	c.order = append(c.order, id)
	var tick func()
	tick = func() {
		if m.down {
			return
		}
		if now := c.sched.Now(); now < m.stalledUntil {
			c.sched.At(m.stalledUntil, tick) // the ticks it slept through are lost, as a process's timer's are
			return
		}
		m.node.Tick()
		c.flush(m)
		c.sched.After(c.cfg.Tick, tick)
	}
	c.sched.After(time.Duration(c.rng.Int64N(int64(c.cfg.Tick)))+1, tick)
	return n, nil
}

// Node returns the node with the given ID, or nil.
func (c *Cluster) Node(id ident.Peer) *overlay.Node {
	if m := c.members[id]; m != nil {
		return m.node
	}
	return nil
}

func (c *Cluster) get(id ident.Peer) (*member, error) {
	m := c.members[id]
	if m == nil {
		return nil, fmt.Errorf("%w: %v", simnet.ErrUnknownNode, id)
	}
	if m.down {
		return nil, fmt.Errorf("%w: %v", simnet.ErrCrashed, id)
	}
	return m, nil
}

// Join makes node id join through member via (now).
func (c *Cluster) Join(id, via ident.Peer) error {
	m, err := c.get(id)
	if err != nil {
		return err
	}
	if err := m.node.Join(via); err != nil {
		return err
	}
	c.flush(m)
	return nil
}

// Leave makes node id leave gracefully (now); it is then gone.
func (c *Cluster) Leave(id ident.Peer) error {
	m, err := c.get(id)
	if err != nil {
		return err
	}
	if err := m.node.Leave(); err != nil {
		return err
	}
	c.flush(m)
	m.down = true
	return c.net.Crash(id) // the program has closed: nothing reaches it
}

// Crash makes node id fail silently (now): no more ticks, nothing in or
// out.
func (c *Cluster) Crash(id ident.Peer) error {
	m, err := c.get(id)
	if err != nil {
		return err
	}
	m.down = true
	return c.net.Crash(id)
}

// Stall stops node id's process for d from now (SIGSTOP, a tab whose
// page thread is busy, a laptop asleep): it neither ticks nor reads, and
// the messages that reach it meanwhile are read, in order, when it goes
// on; its neighbours see only silence.
func (c *Cluster) Stall(id ident.Peer, d time.Duration) error {
	m, err := c.get(id)
	if err != nil {
		return err
	}
	m.stalledUntil = max(m.stalledUntil, c.sched.Now()+d)
	return nil
}

// Route makes node from route payload to the node closest to target in
// space (to, if not zero, to that node only).
func (c *Cluster) Route(from ident.Peer, space int, target overlay.Coord, to ident.Peer, payload []byte) error {
	m, err := c.get(from)
	if err != nil {
		return err
	}
	if to != (ident.Peer{}) {
		err = m.node.RouteTo(to, payload)
	} else {
		err = m.node.Route(space, target, payload)
	}
	if err != nil {
		return err
	}
	c.flush(m)
	return nil
}

func (c *Cluster) receive(m *member, from ident.Peer, b []byte) {
	if m.down {
		return
	}
	if m.stalledUntil > c.sched.Now() {
		c.sched.At(m.stalledUntil, func() { c.receive(m, from, b) }) // read when it goes on, in arrival order
		return
	}
	msg, err := overlay.Unmarshal(b)
	if err == nil && msg.From != from {
		err = fmt.Errorf("%w: From %v on a message from %v", overlay.ErrMisaddressed, msg.From, from)
	}
	if err == nil {
		if c.OnMessage != nil {
			c.OnMessage(c.sched.Now(), msg)
		}
		err = m.node.Step(msg)
	}
	if err != nil {
		c.fault(err)
	}
	c.flush(m)
}

func (c *Cluster) flush(m *member) {
	if !m.node.HasReady() {
		return
	}
	rd, err := overlay.Flush(m.node, m.ep)
	if err != nil {
		c.fault(err)
	}
	for _, d := range rd.Delivered {
		if c.OnDeliver != nil {
			c.OnDeliver(Delivered{At: c.sched.Now(), To: m.node.ID(), Delivery: d})
		}
	}
}

func (c *Cluster) fault(err error) {
	c.nerrs++
	if len(c.errs) < 16 {
		c.errs = append(c.errs, err)
	}
}

// Errors returns the number of messages a node rejected (or failed to
// send) and the first few errors. A correct run has none.
func (c *Cluster) Errors() (int, []error) { return c.nerrs, c.errs }

// RunFor advances virtual time by d.
func (c *Cluster) RunFor(d time.Duration) { c.sched.RunFor(d) }

// RunUntil advances virtual time to t.
func (c *Cluster) RunUntil(t time.Duration) { c.sched.RunUntil(t) }
