package server

import (
	"errors"
	"net"
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
	static  *turn.RelayAddressGeneratorStatic
	filter  *peerFilter
	perUser int     // live allocations per credential user
	total   int     // live allocations in all
	rate    float64 // bytes per second per allocation, both directions
	all     *byteBucket

	mu     sync.Mutex
	byUser map[string]map[*relayConn]struct{}
	live   int

	quotaRefused, peerDenied, bytesDropped atomic.Uint64
}

func newRelays(static *turn.RelayAddressGeneratorStatic, filter *peerFilter, cfg TURNConfig) *relays {
	return &relays{
		static: static, filter: filter, perUser: cfg.MaxAllocationsPerUser, total: cfg.MaxAllocations,
		rate:   float64(cfg.AllocationBytesPerSecond),
		all:    newByteBucket(float64(cfg.TotalBytesPerSecond), time.Now()),
		byUser: map[string]map[*relayConn]struct{}{},
	}
}

// Validate implements turn.RelayAddressGenerator.
func (r *relays) Validate() error { return r.static.Validate() }

// allows reports whether user may have one more allocation.
func (r *relays) allows(user string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.live < r.total && len(r.byUser[user]) < r.perUser
}

// quota is the turn.QuotaHandler: 486 Allocation Quota Reached.
func (r *relays) quota(user, _ string, _ net.Addr) bool {
	if r.allows(user) {
		return true
	}
	r.quotaRefused.Add(1)
	return false
}

// AllocatePacketConn implements turn.RelayAddressGenerator.
func (r *relays) AllocatePacketConn(c turn.AllocateListenerConfig) (net.PacketConn, net.Addr, error) {
	r.mu.Lock()
	if r.live >= r.total || len(r.byUser[c.UserID]) >= r.perUser {
		r.mu.Unlock()
		r.quotaRefused.Add(1)
		return nil, nil, errTURNQuota
	}
	rc := &relayConn{relays: r, user: c.UserID, own: newByteBucket(r.rate, time.Now())}
	if r.byUser[c.UserID] == nil {
		r.byUser[c.UserID] = map[*relayConn]struct{}{}
	}
	r.byUser[c.UserID][rc] = struct{}{}
	r.live++
	r.mu.Unlock()
	conn, addr, err := r.static.AllocatePacketConn(c)
	if err != nil {
		r.release(rc)
		return nil, nil, err
	}
	growBuffers(conn)
	rc.PacketConn = conn
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
	r.live--
}

// revoke closes user's relays (their allocations end).
func (r *relays) revoke(user string) int {
	r.mu.Lock()
	var conns []*relayConn
	for rc := range r.byUser[user] {
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
	own    *byteBucket
	once   sync.Once
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
