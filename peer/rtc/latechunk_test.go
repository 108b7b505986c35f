package rtc

import (
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Stray chunks are strikes, except those an honest sender sends after
// its transfer closed here: 98,304 stray 1-byte chunks of transfers never
// announced were counted and left the link up; now MaxStrikes of them
// ban the sender. The late chunks of a refused or superseded transfer, in
// order and of the announced size, stay free.
func TestStrayChunksAreStrikes(t *testing.T) {
	m, clock, logs := newShellWith(t, 1, nil)
	cs := m.cfg.ChunkSize
	if err := m.SetTransferLimit(int64(4 * cs)); err != nil {
		t.Fatal(err)
	}
	peer := testIdentity(t, 2)
	m.SetNeighbors([]ident.Peer{peer.ID()})
	c := openLink(t, m, peer, clock.Now())
	strikes := func() int { return m.core.strikes[peer.ID()].n }
	seq := uint64(100)
	manifest := func(tid uint64, size int) {
		seq++
		m.onMessage(c, manifestFrame(t, peer, m.ID(), seq, Manifest{Transfer: tid, Size: uint64(size), ChunkSize: uint32(cs)}))
	}
	chunks := func(tid uint64, size, from, to int) {
		for off := from; off < to; off += cs {
			m.onMessage(c, mustChunk(t, tid, uint64(off), make([]byte, min(cs, size-off))))
		}
	}

	// Honest strays: a transfer over the limit (refused, its chunks sent
	// anyway, the last one short), and one superseded half way.
	big := 5*cs + 7
	manifest(1, big)
	chunks(1, big, 0, big)
	manifest(2, 4*cs)
	chunks(2, 4*cs, 0, 2*cs)
	manifest(3, 4*cs)
	chunks(2, 4*cs, 2*cs, 4*cs)
	s := m.Stats()
	if s.StrayChunks != 8 || s.TransfersRefused != 1 || s.TransfersSuperseded != 1 || strikes() != 0 {
		t.Fatalf("honest late chunks: stray %d refused %d superseded %d strikes %d, want 8 1 1 0", s.StrayChunks, s.TransfersRefused, s.TransfersSuperseded, strikes())
	}

	// Not what an honest sender sends: a chunk repeated after its
	// transfer closed, a 1-byte chunk of an announced transfer, a chunk
	// past the announced size.
	m.onMessage(c, mustChunk(t, 1, 0, make([]byte, cs)))
	m.onMessage(c, mustChunk(t, 2, 0, []byte("x")))
	m.onMessage(c, mustChunk(t, 1, uint64(6*cs), make([]byte, cs)))
	if strikes() != 3 {
		t.Fatalf("strikes %d after three impossible late chunks, want 3", strikes())
	}

	// The flood: 1-byte chunks of transfers never announced. The
	// MaxStrikes-th refused chunk bans the peer and drops its link.
	for i := 3; i < m.cfg.MaxStrikes; i++ {
		if m.core.Banned(peer.ID(), clock.Now()) {
			t.Fatalf("banned after %d strikes, want %d", i, m.cfg.MaxStrikes)
		}
		m.onMessage(c, mustChunk(t, 1<<40+uint64(i), 0, []byte("x")))
	}
	s = m.Stats()
	if !m.core.Banned(peer.ID(), clock.Now()) || s.Bans != 1 {
		t.Fatalf("after %d stray 1-byte chunks: banned %v, bans %d", m.cfg.MaxStrikes, m.core.Banned(peer.ID(), clock.Now()), s.Bans)
	}
	if want := uint64(8 + m.cfg.MaxStrikes); s.StrayChunks != want {
		t.Errorf("stray chunks %d, want %d", s.StrayChunks, want)
	}
	if len(logs.matching("not open and was not announced")) == 0 {
		t.Errorf("no log line names the stray chunk")
	}
}

// What a connection remembers of its peer's transfers is bounded: the
// oldest announcement is forgotten, and its late chunks are strikes.
func TestAnnouncedTransfersAreBounded(t *testing.T) {
	m, clock, _ := newShellWith(t, 1, nil)
	cs := m.cfg.ChunkSize
	peer := testIdentity(t, 2)
	m.SetNeighbors([]ident.Peer{peer.ID()})
	c := openLink(t, m, peer, clock.Now())
	for tid := uint64(1); tid <= 3*maxAnnounced; tid++ {
		m.onMessage(c, manifestFrame(t, peer, m.ID(), 100+tid, Manifest{Transfer: tid, Size: uint64(2 * cs), ChunkSize: uint32(cs)}))
	}
	m.mu.Lock()
	n := len(c.announced)
	m.mu.Unlock()
	if n != maxAnnounced {
		t.Fatalf("%d transfers remembered, want %d", n, maxAnnounced)
	}
	m.onMessage(c, mustChunk(t, 3*maxAnnounced-1, 0, make([]byte, cs))) // remembered (superseded): free
	m.onMessage(c, mustChunk(t, 1, 0, make([]byte, cs)))                // forgotten: a strike
	if n := m.core.strikes[peer.ID()].n; n != 1 {
		t.Fatalf("strikes %d, want 1", n)
	}
}
