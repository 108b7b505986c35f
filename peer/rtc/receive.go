package rtc

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// result answers an incoming transfer.
func (m *Manager) result(c *conn, tid uint64, code ResultCode) {
	frame, err := m.control(c.peer, KindResult, MarshalResult(Result{Transfer: tid, Code: code}))
	if err == nil {
		// Unordered: a result stands alone, and on the main channel it
		// would wait behind this peer's own model chunks to c.peer.
		err = m.sendFrame(c.peer, frame, false, true)
	}
	if err != nil {
		m.logf("result %v for transfer %d to %v: %v", code, tid, c.peer, err)
	}
}

// errorStat counts a refused frame by its error.
func (m *Manager) errorStat(err error) {
	m.count(func(s *Stats) {
		switch {
		case errors.Is(err, ErrBadSignature):
			s.BadSignature++
		case errors.Is(err, ErrReplay):
			s.Replayed++
		case errors.Is(err, ErrVersion):
			s.BadVersion++
		case errors.Is(err, ErrBanned):
			s.BannedRefused++
		case errors.Is(err, ErrRateLimited):
			s.RateLimited++
		case errors.Is(err, ErrCapacity):
			// not a bad frame: counted as a refused session only
		case errors.Is(err, ErrTooLarge):
			s.Oversized++
		case errors.Is(err, ErrUnknownKind):
			s.UnknownKind++
		default:
			s.Malformed++
		}
	})
}

// onMessage handles one data channel message from c's peer. On a native
// peer it runs on the connection's reader goroutine, so blocking here
// (Events full) holds back that peer only.
func (m *Manager) onMessage(c *conn, b []byte) {
	m.count(func(s *Stats) { s.FramesIn++; s.BytesIn += uint64(len(b)) })
	f, err := ParseFrame(b)
	if err != nil {
		m.refused(c, err)
		return
	}
	if f.Chunk != nil {
		m.onChunk(c, f.Chunk)
		return
	}
	ctl := f.Control
	// The size first: a signature check costs far more than a length
	// comparison, and an oversized frame is refused either way.
	if len(ctl.Payload) > m.cfg.MaxControlPayload {
		m.refused(c, fmt.Errorf("%w: %v payload of %d bytes", ErrTooLarge, ctl.Kind, len(ctl.Payload)))
		return
	}
	// Then the sender's frame budget, also before the signature.
	var admit bool
	m.step(func(p *policy, now time.Time) { admit = p.AdmitFrame(c.peer, now) })
	if !admit {
		m.refused(c, fmt.Errorf("%w: %v frame", ErrRateLimited, ctl.Kind))
		return
	}
	m.mu.Lock()
	pub := c.pub
	m.mu.Unlock()
	if err := VerifyControl(ctl, pub, c.peer, m.self); err != nil {
		m.refused(c, err)
		return
	}
	var fresh bool
	m.step(func(p *policy, now time.Time) { fresh = p.Fresh(c.peer, ctl.Seq, now) })
	if !fresh {
		m.refused(c, fmt.Errorf("%w: control frame %d", ErrReplay, ctl.Seq))
		return
	}
	switch ctl.Kind {
	case KindOverlay, KindApp:
		m.emit(Event{Type: EventMessage, Peer: c.peer, Kind: ctl.Kind, Data: ctl.Payload})
	case KindSignal:
		e, err := UnmarshalEnvelope(ctl.Payload)
		if err == nil && (len(e.Path) == 0 || e.Path[0] != e.Origin || e.Path[len(e.Path)-1] != c.peer) {
			err = fmt.Errorf("%w: envelope path does not run from its origin to its sender", ErrMalformed)
		}
		if err != nil {
			m.refused(c, err)
			return
		}
		m.onEnvelope(e, c.peer)
	case KindManifest:
		m.onManifest(c, ctl.Payload)
	case KindResult:
		r, err := UnmarshalResult(ctl.Payload)
		if err != nil {
			m.refused(c, err)
			return
		}
		m.mu.Lock()
		ch := c.results[r.Transfer]
		m.mu.Unlock()
		if ch != nil {
			select {
			case ch <- r.Code:
			default:
			}
		}
	}
}

// refused counts and logs a refused frame; the connection stays up.
func (m *Manager) refused(c *conn, err error) {
	m.errorStat(err)
	m.refusedAs(c, refusalReason(err), err)
}

// refusedAs logs a refusal (the first of its reason from c's peer in a
// period; the rest are summarised, see refusalLog) and gives the peer a
// strike: too many and it is banned for a while (policy_strikes.go).
func (m *Manager) refusedAs(c *conn, reason string, err error) {
	if m.refusals.note(c.peer, reason, m.now()) {
		m.logf("refused a frame from %v: %v (more like it are summarised every %v)", c.peer, err, refusalPeriod)
	} else {
		m.count(func(s *Stats) { s.LogsSuppressed++ })
	}
	m.step(func(p *policy, now time.Time) { p.Strike(c.peer, now) })
}

// onManifest opens an incoming transfer, or refuses it. Every check
// comes before any allocation, and the payload's memory is reserved
// chunk by chunk as the bytes arrive (onChunk), so a manifest costs only
// its chunk index, whatever size it claims.
func (m *Manager) onManifest(c *conn, payload []byte) {
	man, err := UnmarshalManifest(payload)
	if err != nil {
		m.refused(c, err)
		return
	}
	// Remembered whether it opens or not: its chunks come anyway.
	m.mu.Lock()
	m.announceLocked(c, man)
	m.mu.Unlock()
	refuse := func(why string) {
		m.count(func(s *Stats) { s.TransfersRefused++ })
		m.logf("refused transfer %d (%d bytes) from %v: %s", man.Transfer, man.Size, c.peer, why)
		m.result(c, man.Transfer, ResultRefused)
	}
	limit := m.res.transferLimit()
	switch {
	case man.ChunkSize != uint32(m.cfg.ChunkSize):
		// The chunk size is ours, not the sender's: tiny chunks would
		// make the chunk index (and the frames) cost far more than the
		// bytes they carry.
		refuse(fmt.Sprintf("chunk size %d, this peer takes %d", man.ChunkSize, m.cfg.ChunkSize))
		return
	case m.cfg.Task != ([32]byte{}) && man.Task != m.cfg.Task:
		refuse("another task")
		return
	case man.Size > uint64(limit):
		m.count(func(s *Stats) { s.Oversized++ })
		refuse(fmt.Sprintf("over the transfer limit of %d bytes", limit))
		return
	}
	m.mu.Lock()
	if _, dup := c.recv[man.Transfer]; dup || c.closed {
		m.mu.Unlock()
		refuse("duplicate transfer ID")
		return
	}
	a, err := newAssembly(man, limit)
	if err != nil { // not reached: the size was checked above
		m.mu.Unlock()
		refuse(err.Error())
		return
	}
	// At MaxIncoming, the newest manifest supersedes the peer's oldest
	// transfer in flight (dropped, its memory released): a newer model
	// makes an older one useless to the MEP, and an honest sender sends
	// one transfer at a time (sendLoop), so a second manifest means it
	// gave up on the first (a retry) or has a newer model. A peer thus
	// holds at most MaxIncoming transfers' memory, and is never refused
	// a fresh model because a stale one is stuck.
	var superseded []uint64
	for len(c.recv) >= m.cfg.MaxIncoming {
		tid := oldestTransfer(c.recv)
		m.release(c.peer, c.recv[tid].a)
		delete(c.recv, tid)
		superseded = append(superseded, tid)
	}
	peer := c.peer
	a.reserve = func(n int64) error { return m.res.reserveMemory(peer, n) }
	if man.Size > 0 {
		m.inSeq++
		c.recv[man.Transfer] = &inTransfer{a: a, last: m.now(), seq: m.inSeq}
	}
	m.mu.Unlock()
	for _, tid := range superseded {
		m.count(func(s *Stats) { s.TransfersFailedIn++; s.TransfersSuperseded++ })
		m.logf("incoming transfer %d from %v superseded by transfer %d: dropped", tid, c.peer, man.Transfer)
		m.result(c, tid, ResultRefused)
	}
	if man.Size == 0 {
		m.complete(c, a)
	}
}

// oldestTransfer returns the ID of the transfer in recv that was opened
// first (recv is not empty).
func oldestTransfer(recv map[uint64]*inTransfer) uint64 {
	var oldest uint64
	var seq uint64 = math.MaxUint64
	for tid, in := range recv {
		if in.seq < seq {
			oldest, seq = tid, in.seq
		}
	}
	return oldest
}

// release returns an incoming transfer's reserved memory.
func (m *Manager) release(peer ident.Peer, a *assembly) {
	m.res.releaseMemory(peer, a.held)
	a.held = 0
}

// onChunk adds a chunk to its transfer. A chunk of no open transfer is
// a stray: counted, and a strike unless an honest sender could have sent
// it late (latechunk.go).
func (m *Manager) onChunk(c *conn, ch *Chunk) {
	m.mu.Lock()
	in := c.recv[ch.Transfer]
	if in == nil {
		late := c.lateChunkLocked(ch.Transfer, ch.Offset, len(ch.Data))
		m.mu.Unlock()
		m.count(func(s *Stats) { s.StrayChunks++ })
		if !late {
			m.refusedAs(c, "stray chunk", fmt.Errorf("%w: chunk at offset %d of %d bytes for transfer %d, which is not open and was not announced to go on there", ErrMalformed, ch.Offset, len(ch.Data), ch.Transfer))
		}
		return
	}
	done, err := in.a.add(ch.Offset, ch.Data)
	in.last = m.now()
	if err == nil {
		c.chunkSeenLocked(ch.Transfer, ch.Offset)
	}
	if err != nil || done {
		delete(c.recv, ch.Transfer)
	}
	if err != nil {
		m.release(c.peer, in.a)
	}
	m.mu.Unlock()
	switch {
	case errors.Is(err, ErrResource):
		m.count(func(s *Stats) { s.TransfersFailedIn++; s.OverBudget++ })
		m.refusedAs(c, "over the memory budget", err)
		m.result(c, ch.Transfer, ResultRefused)
	case err != nil:
		m.refused(c, err)
		m.count(func(s *Stats) { s.TransfersFailedIn++ })
		m.result(c, ch.Transfer, ResultBadChunk)
	case done:
		m.complete(c, in.a)
	}
}

// complete verifies a fully received transfer and hands it up, or drops it.
func (m *Manager) complete(c *conn, a *assembly) {
	err := a.verify()
	m.release(c.peer, a) // the payload goes up, or nowhere
	if err != nil {
		m.count(func(s *Stats) { s.TransfersFailedIn++; s.HashMismatches++ })
		m.logf("transfer %d from %v dropped: %v", a.m.Transfer, c.peer, err)
		m.result(c, a.m.Transfer, ResultHashMismatch)
		return
	}
	m.count(func(s *Stats) { s.TransfersReceived++ })
	m.result(c, a.m.Transfer, ResultOK)
	m.emit(Event{Type: EventTransfer, Peer: c.peer, Manifest: a.m, Data: a.buf})
}
