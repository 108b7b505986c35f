package rtc

// Stray chunks: a chunk whose transfer is not open here. An honest sender
// makes them: it sends a transfer's every chunk before it reads the
// receiver's result (send.go), so the chunks of a transfer this peer
// refused, superseded, dropped over budget or timed out keep arriving
// after it closed. A hostile one makes them by the thousand for nothing:
// a 1-byte chunk of a transfer it never announced costs it 18 bytes and
// this peer a parse and a lookup, and was counted but never a strike
// (98,304 of them left the link up).
//
// So each connection remembers the last maxAnnounced transfers its peer
// announced (a manifest, refused or not), and a stray chunk is free only
// where an honest sender could have sent it: a chunk of a remembered
// transfer, at an offset past that transfer's last one, of the size the
// manifest implies (full chunks, the last one short). Every other stray
// (a transfer never announced or forgotten, a repeated or backward
// offset, a short chunk mid-transfer) is refused and is a strike. A free
// late chunk costs its sender the bandwidth of an honest one.

// maxAnnounced bounds the transfers remembered per connection: an honest
// sender has one transfer in flight (sendLoop) and retries it a few
// times (TransferRetries), each under a fresh ID.
const maxAnnounced = 8

// minLateChunk is the smallest chunk size a remembered manifest may
// declare (Config.ChunkSize's lower bound): a manifest with tiny chunks
// is refused, and its chunks are not let off.
const minLateChunk = 1024

// announced is what a connection remembers of one announced transfer.
type announced struct {
	size, chunkSize uint64
	next            uint64 // the lowest offset its next chunk may have
	seq             uint64 // announcement order: the oldest is forgotten first
}

// announceLocked remembers man's transfer on c (under m.mu).
func (m *Manager) announceLocked(c *conn, man Manifest) {
	if man.ChunkSize < minLateChunk {
		return
	}
	if c.announced == nil {
		c.announced = map[uint64]*announced{}
	}
	if _, ok := c.announced[man.Transfer]; ok {
		return // a duplicate ID keeps its first announcement
	}
	for len(c.announced) >= maxAnnounced {
		var oldest uint64
		var seq uint64 = 1<<64 - 1
		for tid, a := range c.announced {
			if a.seq < seq {
				oldest, seq = tid, a.seq
			}
		}
		delete(c.announced, oldest)
	}
	m.inSeq++
	c.announced[man.Transfer] = &announced{size: man.Size, chunkSize: uint64(man.ChunkSize), seq: m.inSeq}
}

// chunkSeenLocked notes that c's transfer tid got a chunk at offset
// (under m.mu), so that a late chunk must come after it.
func (c *conn) chunkSeenLocked(tid, offset uint64) {
	if a := c.announced[tid]; a != nil && offset >= a.next {
		a.next = offset + a.chunkSize
	}
}

// lateChunkLocked reports whether a chunk of tid at offset with n bytes,
// which has no open transfer on c, is one an honest sender could have
// sent after tid closed here; if so it is noted (under m.mu).
func (c *conn) lateChunkLocked(tid, offset uint64, n int) bool {
	a := c.announced[tid]
	if a == nil || offset < a.next || offset >= a.size || offset%a.chunkSize != 0 {
		return false
	}
	if uint64(n) != min(a.chunkSize, a.size-offset) {
		return false
	}
	a.next = offset + a.chunkSize
	return true
}
