package netpeer

import (
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A peer serves observers (`peerlearn collect`, observer.go): peers
// that registered with the signalling server as observers, joined no
// overlay and pull this peer's current model with a pull frame
// (observe_wire.go). An observer takes no neighbour's place: the overlay
// never learns of it (its overlay messages are refused), and its link is
// kept open beside the neighbours' only while it pulls, never used to
// route others' signalling (rtc.Manager.KeepLinks). Nothing it sends
// reaches the aggregation: its models and MEP or method messages are
// refused and counted (Status.ObserverRefused). Bounds: maxObservers at
// once, forgotten after observerIdle without a pull, at most one model
// per observer per observerGap and only when a new round made one.
const (
	maxObservers = 4
	observerIdle = 30 * time.Second
	observerGap  = time.Second
)

// ObserverStatus is one observer a peer serves, in Status.
type ObserverStatus struct {
	ID         string  `json:"id"`
	SinceS     float64 `json:"since_s"`     // seconds since its first pull
	ModelsSent uint64  `json:"models_sent"` // models this peer sent it
	Round      int     `json:"round"`       // the round of the latest one
}

// observerSet is the observers a peer serves. Only Run's loop touches it.
type observerSet struct {
	m map[ident.Peer]*observer
	// refusedPulls counts pulls refused (malformed, full, from an
	// overlay neighbour); refusedFrom what observers sent besides pulls.
	refusedPulls, refusedFrom uint64
}

type observer struct {
	since, lastPull, lastSent time.Time
	sent                      uint64
	round                     int
}

func (s *observerSet) has(id ident.Peer) bool { _, ok := s.m[id]; return ok }

// admit registers (or refreshes) id at now; it reports whether id is
// served and whether it is new.
func (s *observerSet) admit(id ident.Peer, now time.Time) (o *observer, added bool) {
	if o = s.m[id]; o != nil {
		o.lastPull = now
		return o, false
	}
	if len(s.m) >= maxObservers {
		return nil, false
	}
	if s.m == nil {
		s.m = map[ident.Peer]*observer{}
	}
	o = &observer{since: now, lastPull: now, round: -1}
	s.m[id] = o
	return o, true
}

// expire forgets observers silent for observerIdle; it reports whether
// any went.
func (s *observerSet) expire(now time.Time) bool {
	n := len(s.m)
	maps.DeleteFunc(s.m, func(_ ident.Peer, o *observer) bool { return now.Sub(o.lastPull) > observerIdle })
	return len(s.m) != n
}

func (s *observerSet) ids() []ident.Peer {
	return slices.SortedFunc(maps.Keys(s.m), func(a, b ident.Peer) int { return ident.ComparePeers(a, b) })
}

func (s *observerSet) status(now time.Time) []ObserverStatus {
	var out []ObserverStatus
	for _, id := range s.ids() {
		o := s.m[id]
		out = append(out, ObserverStatus{ID: hexID(id), SinceS: now.Sub(o.since).Seconds(), ModelsSent: o.sent, Round: o.round})
	}
	return out
}

// onPull answers an observer's pull with this peer's current model when
// a round has made one it does not hold.
func (p *Peer) onPull(from ident.Peer, b []byte) {
	have, err := decodePull(b)
	if err == nil && slices.Contains(p.n.Neighbors(), from) {
		err = errObserverNeighbour
	}
	now := time.Now()
	var o *observer
	if err == nil {
		var added bool
		if o, added = p.obs.admit(from, now); o == nil {
			err = errObserversFull
		} else if added {
			p.mgr.KeepLinks(p.obs.ids())
			p.logf("observer %v: serving it (%d observers)", from, len(p.obs.m))
		}
	}
	if err != nil {
		p.obs.refusedPulls++
		p.rateLogf("refused a pull from %v: %v", from, err)
		return
	}
	if p.learner == nil || now.Sub(o.lastSent) < observerGap {
		return
	}
	params, round := p.learner.model()
	if params == nil || round == have || round == o.round {
		return
	}
	meta, err := encodeObserved(observedHeader{Round: round, NumParams: len(params), Arch: p.learner.peer.ArchTag()})
	if err != nil {
		p.logf("observer %v: %v", from, err)
		return
	}
	payload := make([]byte, 4*len(params))
	for i, x := range params {
		binary.LittleEndian.PutUint32(payload[4*i:], math.Float32bits(x))
	}
	if _, err := p.mgr.SendTransfer(from, meta, payload, mep.FingerprintOf(params, nil), p.cfg.Task); err != nil {
		p.rateLogf("observer %v: send: %v", from, err)
		return
	}
	o.lastSent, o.sent, o.round = now, o.sent+1, round
}

// watchObservers forgets silent observers (their links then close after
// the transport's grace, like a former neighbour's).
func (p *Peer) watchObservers(now time.Time) {
	if p.obs.expire(now) {
		p.mgr.KeepLinks(p.obs.ids())
	}
}
