package aggregate

import "github.com/peerlearn/peerlearn/types/ident"

// Pull is what the clipping rule measured of one accepted neighbour's
// direction in a round (ClipConfig.Direction and Behind): the numbers its
// checks compare with their thresholds, reported whether or not they
// crossed them, so that Reputation can follow each neighbour over rounds
// (DriftConfig: a neighbour that sits just inside a threshold every round
// crosses none, and its pulls add up).
type Pull struct {
	// Index is the contribution's position in others.
	Index int
	// From is its peer.
	From ident.Peer
	// Cosine is the direction check's cosine between the neighbour's
	// difference from our Origin and our own step; valid when HasCosine.
	Cosine    float64
	HasCosine bool
	// Behind is the behind check's reach: how far behind the
	// neighbours' lower median position along our step the model sits,
	// in reference distances (0 at or ahead of it); valid when HasBehind.
	Behind    float64
	HasBehind bool
}
