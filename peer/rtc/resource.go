package rtc

import (
	"fmt"
	"sync"

	"github.com/peerlearn/peerlearn/types/ident"
)

// resources is the Manager's resource manager, after libp2p's: memory a
// remote peer can make this one hold is reserved through it before it is
// allocated, against every scope it counts in — the system (all peers
// together), the peer, and the transfer (the connection-level scope,
// whose bound is the transfer limit, checked on its manifest) — and is
// released when the transfer completes, fails, stalls or loses its
// connection. A reservation that would exceed a scope's limit is refused
// whole (ErrResource) and the transfer is dropped: nothing is held on
// credit. Connections and in-progress offers are the policy's budgets
// (policy_budget.go); together they are what an untrusted peer may cost.
//
// Safe for concurrent use.
type resources struct {
	mu        sync.Mutex
	transfer  int64 // one transfer's payload bound (the model's size)
	perPeer   int   // transfers at once per peer (Config.MaxIncoming)
	system    int   // transfers' worth of memory for all peers (Config.IncomingTransfers)
	sysHeld   int64
	peerHeld  map[ident.Peer]int64
	peakHeld  int64
	peakPeer  int64 // the most one peer held at once
	overLimit uint64
}

func newResources(cfg Config) *resources {
	return &resources{
		transfer: cfg.MaxTransferBytes, perPeer: cfg.MaxIncoming, system: cfg.IncomingTransfers,
		peerHeld: map[ident.Peer]int64{},
	}
}

// setTransferLimit bounds one transfer's payload (the peer runtime sets
// the exact model size once it knows the task's architecture).
func (r *resources) setTransferLimit(n int64) {
	r.mu.Lock()
	r.transfer = n
	r.mu.Unlock()
}

func (r *resources) transferLimit() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.transfer
}

// limits returns the peer and system scopes' memory limits (r.mu held).
func (r *resources) limitsLocked() (peer, system int64) {
	return int64(r.perPeer) * r.transfer, int64(r.system) * r.transfer
}

// reserveMemory reserves n bytes for peer, or refuses (ErrResource)
// if the peer's or the system's scope would go over its limit.
func (r *resources) reserveMemory(peer ident.Peer, n int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	peerMax, sysMax := r.limitsLocked()
	switch {
	case r.peerHeld[peer]+n > peerMax:
		r.overLimit++
		return fmt.Errorf("%w: %v would hold %d bytes of transfers, peer limit %d", ErrResource, peer, r.peerHeld[peer]+n, peerMax)
	case r.sysHeld+n > sysMax:
		r.overLimit++
		return fmt.Errorf("%w: transfers would hold %d bytes, system limit %d", ErrResource, r.sysHeld+n, sysMax)
	}
	r.peerHeld[peer] += n
	r.sysHeld += n
	r.peakHeld = max(r.peakHeld, r.sysHeld)
	r.peakPeer = max(r.peakPeer, r.peerHeld[peer])
	return nil
}

// releaseMemory returns n bytes reserved for peer.
func (r *resources) releaseMemory(peer ident.Peer, n int64) {
	if n <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sysHeld -= n
	if left := r.peerHeld[peer] - n; left > 0 {
		r.peerHeld[peer] = left
	} else {
		delete(r.peerHeld, peer) // the map holds only peers holding memory
	}
}

// ResourceUsage is what the resource manager holds now and has held.
type ResourceUsage struct {
	TransferLimit int64  `json:"transfer_limit"`  // one transfer's payload bound
	HeldBytes     int64  `json:"held_bytes"`      // incoming transfer memory held now
	PeakBytes     int64  `json:"peak_bytes"`      // the most held at once
	PeakPeerBytes int64  `json:"peak_peer_bytes"` // the most one peer made it hold at once
	PeerLimit     int64  `json:"peer_limit"`      // one peer's memory scope
	SystemLimit   int64  `json:"system_limit"`    // all peers' memory scope
	OverLimit     uint64 `json:"over_limit"`      // reservations refused
}

func (r *resources) usage() ResourceUsage {
	r.mu.Lock()
	defer r.mu.Unlock()
	peer, sys := r.limitsLocked()
	return ResourceUsage{TransferLimit: r.transfer, HeldBytes: r.sysHeld, PeakBytes: r.peakHeld, PeakPeerBytes: r.peakPeer, PeerLimit: peer, SystemLimit: sys, OverLimit: r.overLimit}
}
