package aggregate

import "github.com/peerlearn/peerlearn/types/ident"

// Pull is what the clipping rule's direction check measured of one
// neighbour in a round (ClipConfig.Direction): the cosine it compares
// with MinCosine, reported whether or not it crossed it, so that
// Reputation can follow each neighbour over rounds (DriftConfig: a
// neighbour that sits just inside the threshold every round crosses it
// never, and its pulls add up).
type Pull struct {
	// Index is the contribution's position in others.
	Index int
	// From is its peer.
	From ident.Peer
	// Cosine is the cosine between the neighbour's difference from our
	// Origin and our own step, self - Origin.
	Cosine float64
}
