package rtc

import (
	"errors"
	"fmt"
	"time"
)

// transmit sends one transfer on c, retrying, and reports whether it
// arrived.
func (m *Manager) transmit(c *conn, t *outTransfer) error {
	var last error
	for attempt := 0; attempt <= m.cfg.TransferRetries; attempt++ {
		if attempt > 0 {
			m.count(func(s *Stats) { s.TransferRetries++ })
		}
		last = m.attempt(c, t)
		if last == nil {
			return nil
		}
		if errors.Is(last, ErrUnreachable) {
			break
		}
		m.logf("transfer %d to %v, attempt %d: %v", t.handle, c.peer, attempt+1, last)
	}
	return last
}

// attempt sends the manifest and every chunk under flow control, then
// waits for the receiver's result.
func (m *Manager) attempt(c *conn, t *outTransfer) error {
	tid := m.tids.Add(1)
	man := Manifest{
		Transfer: tid, Size: uint64(len(t.data)), ChunkSize: uint32(m.cfg.ChunkSize),
		SHA256: t.sum, Fingerprint: t.fp, Task: t.task, Meta: t.meta,
	}
	payload, err := MarshalManifest(man)
	if err != nil {
		return err
	}
	res := make(chan ResultCode, 1)
	m.mu.Lock()
	c.results[tid] = res
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(c.results, tid)
		m.mu.Unlock()
	}()
	frame, err := m.control(c.peer, KindManifest, payload)
	if err == nil {
		err = m.write(c, frame, false)
	}
	if err != nil {
		return err
	}
	poll := time.NewTicker(20 * time.Millisecond) // backs up OnBufferedAmountLow, which fires only below LowWater
	defer poll.Stop()
	pace := newPacer(m.cfg)
	for off := 0; off < len(t.data); off += m.cfg.ChunkSize {
		stallSince := m.now()
		for pace.wait(c.dc.BufferedAmount()) {
			select {
			case <-c.low:
			case <-poll.C:
			case <-c.done:
				return fmt.Errorf("%w: connection closed", ErrUnreachable)
			}
			if m.now().Sub(stallSince) > m.cfg.TransferTimeout {
				return fmt.Errorf("%w: send buffer did not drain for %v", ErrTransfer, m.cfg.TransferTimeout)
			}
		}
		data := t.data[off:min(off+m.cfg.ChunkSize, len(t.data))]
		if h := m.hooks.chunk; h != nil {
			var stop bool
			if data, stop = h(tid, uint64(off), data); stop {
				break
			}
		}
		frame, err := AppendChunk(make([]byte, 0, chunkHeader+len(data)), tid, uint64(off), data)
		if err != nil {
			return err
		}
		if err := m.write(c, frame, false); err != nil {
			return err
		}
		pace.sent(len(frame))
	}
	timer := time.NewTimer(m.cfg.TransferTimeout)
	defer timer.Stop()
	select {
	case code := <-res:
		if code == ResultOK {
			return nil
		}
		return fmt.Errorf("%w: receiver says %v", ErrTransfer, code)
	case <-timer.C:
		return fmt.Errorf("%w: no result within %v", ErrTransfer, m.cfg.TransferTimeout)
	case <-c.done:
		return fmt.Errorf("%w: connection closed", ErrUnreachable)
	}
}

// sendLoop sends c's queued transfers one at a time while c is open.
func (m *Manager) sendLoop(c *conn) {
	for {
		m.mu.Lock()
		if c.closed {
			m.mu.Unlock()
			return
		}
		if len(c.transfers) == 0 {
			m.mu.Unlock()
			select {
			case <-c.wake:
				continue
			case <-c.done:
				return
			}
		}
		t := c.transfers[0]
		c.transfers = c.transfers[1:]
		m.mu.Unlock()
		if err := m.transmit(c, t); err != nil {
			m.count(func(s *Stats) { s.TransfersFailedOut++ })
			m.emit(Event{Type: EventSendFailed, Peer: c.peer, Handle: t.handle, Err: err})
			continue
		}
		m.count(func(s *Stats) { s.TransfersSent++ })
		m.emit(Event{Type: EventSent, Peer: c.peer, Handle: t.handle})
	}
}
