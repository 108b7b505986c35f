package netpeer

import "github.com/peerlearn/peerlearn/types/ident"

// rotateContacts returns a welcome's contacts starting at the k-th (k
// counts a peer's earlier re-registrations, 0 for the first): the peer
// joins through the first and keeps the others for retries.
//
// Why rotate: the server lists established peers first, so a peer that
// registers again while part of the overlay is out of its reach (a
// partition that the server still spans) is handed the same unreachable
// contact first, move after move. The overlay's join retries go to a
// neighbour once the node has one, so a fragment of two never tried its
// other contacts: in a CI run a half of 4 stayed split in two pairs for
// 40 s, every move joining through the one established peer across the
// cut. Starting at the next contact on each move reaches the rest.
func rotateContacts(cs []ident.Peer, k int) []ident.Peer {
	if len(cs) == 0 || k <= 0 {
		return cs
	}
	k %= len(cs)
	out := make([]ident.Peer, 0, len(cs))
	out = append(out, cs[k:]...)
	return append(out, cs[:k]...)
}
