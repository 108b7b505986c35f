package simnet

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Handler receives the messages delivered to one node. Deliver is called
// from the scheduler, one event at a time, never concurrently; it may
// Send (the new messages are scheduled, not delivered inside the call).
type Handler[A comparable, M any] interface {
	Deliver(from A, m M)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc[A comparable, M any] func(from A, m M)

// Deliver calls f.
func (f HandlerFunc[A, M]) Deliver(from A, m M) { f(from, m) }

// Config describes the links of a Network.
type Config[M any] struct {
	// Latency is the one-way delay of every message, drawn per message
	// (SetLinkLatency overrides it for a pair of nodes).
	Latency Latency
	// Loss is the probability that a message is dropped, 0..1.
	Loss float64
	// FIFO keeps each directed link in order, like a TCP connection: a
	// message never arrives before one sent earlier on the same link.
	FIFO bool
	// Size returns a message's size in bytes for the byte counters; nil
	// counts 0.
	Size func(M) int
}

// DefaultConfig is a reliable in-order network with a fixed 10 ms delay.
func DefaultConfig[M any]() Config[M] {
	return Config[M]{
		Latency: Fixed(10 * time.Millisecond), // a LAN-ish one-way delay
		Loss:    0,                            // reliable, like the paper's TCP
		FIFO:    true,                         // in order per link, like TCP
	}
}

// Counters count one node's traffic (or, from Network.Total, everyone's).
type Counters struct {
	Sent, Received uint64 // messages
	// Dropped counts messages this node sent that never arrived: lost,
	// cut by a partition, or to a crashed or unknown node.
	Dropped                  uint64
	BytesSent, BytesReceived uint64
}

// Network is an in-memory network of nodes addressed by A, carrying
// messages M, on a Scheduler. Not safe for concurrent use.
type Network[A comparable, M any] struct {
	sched *Scheduler
	rng   *rand.Rand
	cfg   Config[M]
	hosts map[A]*host[A, M]
	links map[[2]A]*link
	total Counters
}

type host[A comparable, M any] struct {
	h       Handler[A, M]
	crashed bool
	group   int // partition group; 0 when not partitioned
	c       Counters
}

type link struct {
	latency Latency       // nil: the network's
	last    time.Duration // arrival time of the last message (FIFO)
}

// New returns an empty network on sched. rng drives latency and loss; seed
// it for a reproducible run.
func New[A comparable, M any](sched *Scheduler, rng *rand.Rand, cfg Config[M]) (*Network[A, M], error) {
	if sched == nil || rng == nil {
		return nil, fmt.Errorf("%w: nil scheduler or rng", ErrInvalid)
	}
	if err := ValidateLatency(cfg.Latency); err != nil {
		return nil, err
	}
	if !(cfg.Loss >= 0 && cfg.Loss <= 1) {
		return nil, fmt.Errorf("%w: loss %v", ErrInvalid, cfg.Loss)
	}
	return &Network[A, M]{sched: sched, rng: rng, cfg: cfg, hosts: map[A]*host[A, M]{}, links: map[[2]A]*link{}}, nil
}

// Scheduler returns the network's scheduler.
func (n *Network[A, M]) Scheduler() *Scheduler { return n.sched }

// Attach adds node a, whose messages go to h, and returns its endpoint.
func (n *Network[A, M]) Attach(a A, h Handler[A, M]) (Endpoint[A, M], error) {
	if _, ok := n.hosts[a]; ok {
		return Endpoint[A, M]{}, fmt.Errorf("%w: %v", ErrDuplicate, a)
	}
	n.hosts[a] = &host[A, M]{h: h}
	return Endpoint[A, M]{net: n, addr: a}, nil
}

// Send sends m from one node to another. It fails only if the sender is
// unknown or crashed; a message to an unknown or crashed node, or across
// a partition, or lost, is dropped silently (and counted), as a real
// network would.
func (n *Network[A, M]) Send(from, to A, m M) error {
	src := n.hosts[from]
	if src == nil {
		return fmt.Errorf("%w: sender %v", ErrUnknownNode, from)
	}
	if src.crashed {
		return fmt.Errorf("%w: sender %v", ErrCrashed, from)
	}
	size := uint64(0)
	if n.cfg.Size != nil {
		size = uint64(n.cfg.Size(m))
	}
	src.c.Sent++
	src.c.BytesSent += size
	n.total.Sent++
	n.total.BytesSent += size
	dst := n.hosts[to]
	if dst == nil || dst.crashed || src.group != dst.group || (n.cfg.Loss > 0 && n.rng.Float64() < n.cfg.Loss) {
		n.drop(src)
		return nil
	}
	key := [2]A{from, to}
	l := n.links[key]
	lat := n.cfg.Latency
	if l != nil && l.latency != nil {
		lat = l.latency
	}
	at := n.sched.Now() + lat.Sample(n.rng)
	if n.cfg.FIFO {
		if l == nil {
			l = &link{}
			n.links[key] = l
		}
		at = max(at, l.last)
		l.last = at
	}
	n.sched.After(at-n.sched.Now(), func() {
		// The world may have changed in flight.
		if dst.crashed || src.group != dst.group {
			n.drop(src)
			return
		}
		dst.c.Received++
		dst.c.BytesReceived += size
		n.total.Received++
		n.total.BytesReceived += size
		dst.h.Deliver(from, m)
	})
	return nil
}

func (n *Network[A, M]) drop(src *host[A, M]) {
	src.c.Dropped++
	n.total.Dropped++
}

// SetLinkLatency sets the delay distribution of the link between a and b,
// both directions.
func (n *Network[A, M]) SetLinkLatency(a, b A, l Latency) error {
	if err := ValidateLatency(l); err != nil {
		return err
	}
	for _, key := range [2][2]A{{a, b}, {b, a}} {
		if n.links[key] == nil {
			n.links[key] = &link{}
		}
		n.links[key].latency = l
	}
	return nil
}

// Crash stops node a for good: it can no longer send, and messages to it,
// including those in flight, are dropped.
func (n *Network[A, M]) Crash(a A) error {
	h := n.hosts[a]
	if h == nil {
		return fmt.Errorf("%w: %v", ErrUnknownNode, a)
	}
	h.crashed = true
	return nil
}

// Crashed reports whether a has crashed.
func (n *Network[A, M]) Crashed(a A) bool {
	h := n.hosts[a]
	return h != nil && h.crashed
}

// Partition splits the network: nodes in different groups cannot reach
// each other (messages in flight across the cut are dropped too); nodes
// in no group form one more group together. It replaces any earlier
// partition.
func (n *Network[A, M]) Partition(groups ...[]A) error {
	for _, g := range groups {
		for _, a := range g {
			if n.hosts[a] == nil {
				return fmt.Errorf("%w: %v", ErrUnknownNode, a)
			}
		}
	}
	for _, h := range n.hosts {
		h.group = 0
	}
	for k, g := range groups {
		for _, a := range g {
			n.hosts[a].group = k + 1
		}
	}
	return nil
}

// Heal ends any partition.
func (n *Network[A, M]) Heal() {
	for _, h := range n.hosts {
		h.group = 0
	}
}

// Counters returns node a's counters (zero for an unknown node).
func (n *Network[A, M]) Counters(a A) Counters {
	if h := n.hosts[a]; h != nil {
		return h.c
	}
	return Counters{}
}

// Total returns the counters summed over all nodes.
func (n *Network[A, M]) Total() Counters { return n.total }

// Endpoint is one node's handle on the network: a Transport.
type Endpoint[A comparable, M any] struct {
	net  *Network[A, M]
	addr A
}

// Addr returns the node's address.
func (e Endpoint[A, M]) Addr() A { return e.addr }

// Send sends m to another node (see Network.Send).
func (e Endpoint[A, M]) Send(to A, m M) error { return e.net.Send(e.addr, to, m) }
