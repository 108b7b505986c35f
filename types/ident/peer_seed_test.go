package ident

import "testing"

// Seed reads the ID's first 8 bytes big-endian: the derivation every
// seeded choice of a peer (shard, training, method core) relies on.
func TestPeerSeed(t *testing.T) {
	p := Peer{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xff}
	if got, want := p.Seed(), uint64(0x0102030405060708); got != want {
		t.Fatalf("Seed() = %#x, want %#x", got, want)
	}
}
