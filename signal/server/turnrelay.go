package server

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/turn/v5"
)

var (
	errTURNQuota      = errors.New("signal server: TURN allocation quota reached")
	errTURNTCP        = errors.New("signal server: TURN TCP relays are not offered")
	errTURNPeerDenied = errors.New("signal server: TURN peer address denied")
)

// relays hands out the embedded TURN server's UDP relay sockets within
// the quotas, each wrapped so that it talks only to allowed peers, within
// its bandwidth and the total, and can be closed when its user's
// signalling session ends (which deletes the allocation).
type relays struct {
	static    *turn.RelayAddressGeneratorStatic
	filter    *peerFilter
	perUser   int // live allocations per credential user
	perIP     int // ... per client address (turnquota.go)
	perSubnet int // ... per client /24 or /48
	total     int // live allocations in all
	exempt    []netip.Prefix
	rate      float64 // bytes per second per allocation, both directions
	all       *byteBucket

	// sessionAddr, once tied to sessions, returns a user's signalling
	// client address (invalid: none).
	sessionAddr atomic.Pointer[func(user string) netip.Addr]

	mu       sync.Mutex
	byUser   map[string]map[*relayConn]struct{}
	byIP     map[netip.Addr]int
	bySubnet map[netip.Prefix]int
	// pending holds what the quota handler charged a user's allocation
	// to, for AllocatePacketConn, which pion calls next on the same
	// goroutine (its read loop) without the source address.
	pending map[string]allocKeys
	live    int

	quotaRefused, addrQuotaRefused, peerDenied, bytesDropped atomic.Uint64
}

func newRelays(static *turn.RelayAddressGeneratorStatic, filter *peerFilter, cfg TURNConfig) *relays {
	return &relays{
		static: static, filter: filter, perUser: cfg.MaxAllocationsPerUser, total: cfg.MaxAllocations,
		perIP: cfg.MaxAllocationsPerIP, perSubnet: cfg.MaxAllocationsPerSubnet, exempt: cfg.Exempt,
		rate:   float64(cfg.AllocationBytesPerSecond),
		all:    newByteBucket(float64(cfg.TotalBytesPerSecond), time.Now()),
		byUser: map[string]map[*relayConn]struct{}{}, byIP: map[netip.Addr]int{}, bySubnet: map[netip.Prefix]int{},
		pending: map[string]allocKeys{},
	}
}

// Validate implements turn.RelayAddressGenerator.
func (r *relays) Validate() error { return r.static.Validate() }

// quota is the turn.QuotaHandler: 486 Allocation Quota Reached.
func (r *relays) quota(user, _ string, src net.Addr) bool {
	k := r.keysFor(user, src)
	r.mu.Lock()
	ok, byAddr := r.allowsLocked(user, k)
	if ok {
		r.pending[user] = k
	}
	r.mu.Unlock()
	if !ok {
		r.refuse(byAddr)
	}
	return ok
}

// AllocatePacketConn implements turn.RelayAddressGenerator.
func (r *relays) AllocatePacketConn(c turn.AllocateListenerConfig) (net.PacketConn, net.Addr, error) {
	r.mu.Lock()
	k, checked := r.pending[c.UserID]
	delete(r.pending, c.UserID)
	ok, byAddr := r.allowsLocked(c.UserID, k)
	if !checked || !ok { // never unchecked: pion asks quota first
		r.mu.Unlock()
		r.refuse(byAddr)
		return nil, nil, errTURNQuota
	}
	rc := &relayConn{relays: r, user: c.UserID, keys: k, own: newByteBucket(r.rate, time.Now())}
	if r.byUser[c.UserID] == nil {
		r.byUser[c.UserID] = map[*relayConn]struct{}{}
	}
	r.byUser[c.UserID][rc] = struct{}{}
	r.chargeLocked(k, 1)
	r.live++
	r.mu.Unlock()
	conn, addr, err := r.static.AllocatePacketConn(c)
	if err != nil {
		r.release(rc)
		return nil, nil, err
	}
	growBuffers(conn)
	// Set under the lock revoke takes: a revoke that came while the
	// socket was being opened (rc listed, no socket yet) marked it, and
	// the allocation ends here instead of outliving its session.
	r.mu.Lock()
	rc.PacketConn = conn
	revoked := rc.revoked
	r.mu.Unlock()
	if revoked {
		rc.Close()
		return nil, nil, errTURNQuota
	}
	return rc, addr, nil
}

// AllocateListener implements turn.RelayAddressGenerator: no TCP relays
// (RFC 6062), one more way into networks the filter guards.
func (r *relays) AllocateListener(turn.AllocateListenerConfig) (net.Listener, net.Addr, error) {
	return nil, nil, errTURNTCP
}

// AllocateConn implements turn.RelayAddressGenerator (no TCP relays).
func (r *relays) AllocateConn(turn.AllocateConnConfig) (net.Conn, error) { return nil, errTURNTCP }

func (r *relays) release(rc *relayConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byUser[rc.user][rc]; !ok {
		return
	}
	delete(r.byUser[rc.user], rc)
	if len(r.byUser[rc.user]) == 0 {
		delete(r.byUser, rc.user)
	}
	r.chargeLocked(rc.keys, -1)
	r.live--
}

// revoke closes user's relays (their allocations end).
func (r *relays) revoke(user string) int {
	r.mu.Lock()
	delete(r.pending, user)
	var conns []*relayConn
	for rc := range r.byUser[user] {
		if rc.PacketConn == nil { // still being opened: AllocatePacketConn closes it
			rc.revoked = true
			continue
		}
		conns = append(conns, rc)
	}
	r.mu.Unlock()
	for _, rc := range conns {
		rc.Close()
	}
	return len(conns)
}

// relayConn is one allocation's relay socket.
type relayConn struct {
	net.PacketConn
	relays *relays
	user   string
	keys   allocKeys // the addresses and subnets it is charged to
	// revoked (under relays.mu): its user's session ended while its
	// socket was being opened.
	revoked bool
	own     *byteBucket
	once    sync.Once
}

// pass reports whether n bytes to or from addr may go: an allowed peer,
// within the allocation's and the server's bandwidth.
func (c *relayConn) pass(n int, addr net.Addr) bool {
	r := c.relays
	if !r.filter.allowedAddr(addr) {
		r.peerDenied.Add(1)
		return false
	}
	now := time.Now()
	if !c.own.take(float64(n), now) || !r.all.take(float64(n), now) {
		r.bytesDropped.Add(uint64(n))
		return false
	}
	return true
}

// ReadFrom returns the next packet from an allowed peer within the
// bandwidth; others are dropped.
func (c *relayConn) ReadFrom(p []byte) (int, net.Addr, error) {
	for {
		n, addr, err := c.PacketConn.ReadFrom(p)
		if err != nil || c.pass(n, addr) {
			return n, addr, err
		}
	}
}

// WriteTo sends to an allowed peer within the bandwidth; over the
// bandwidth the packet is dropped (UDP: as a congested link would).
func (c *relayConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	if !c.relays.filter.allowedAddr(addr) {
		c.relays.peerDenied.Add(1)
		return 0, errTURNPeerDenied
	}
	if !c.pass(len(p), addr) {
		return len(p), nil
	}
	return c.PacketConn.WriteTo(p, addr)
}

// Close closes the socket and gives back the quota.
func (c *relayConn) Close() error {
	var err error
	c.once.Do(func() {
		err = c.PacketConn.Close()
		c.relays.release(c)
	})
	return err
}

// byteBucket is a token bucket of bytes (one second's worth deep), safe
// for concurrent use.
type byteBucket struct {
	mu           sync.Mutex
	rate, tokens float64
	last         time.Time
}

func newByteBucket(rate float64, now time.Time) *byteBucket {
	return &byteBucket{rate: rate, tokens: rate, last: now}
}

func (b *byteBucket) take(n float64, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = min(b.rate, b.tokens+dt*b.rate)
		b.last = now
	}
	if b.tokens < n {
		return false
	}
	b.tokens -= n
	return true
}
