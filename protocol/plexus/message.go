package plexus

import "github.com/peerlearn/peerlearn/types/ident"

// Message is one Plexus message. The codec encodes everything but To and
// Params: To is the transport's address, Params its payload.
type Message struct {
	Type MsgType
	// From is the sender.
	From ident.Peer
	// To is the receiver (not encoded; zero after Decode).
	To ident.Peer
	// Round is k >= 1: the round to train (MsgTrain), trained in
	// (MsgTrained) or aggregated (MsgAggregated, MsgOver).
	Round uint64
	// Bandwidth is the sender's advertised bandwidth (>= 1): every
	// message refreshes the receiver's view of the sender.
	Bandwidth uint64
	// Attempt is a MsgTrained's aggregator rank: 0 for a^k, r for the
	// r-th fallback.
	Attempt uint8
	// Model is the header of MsgTrain and MsgTrained.
	Model ModelHeader
	// Count is the number of models a MsgAggregated or MsgOver round
	// averaged.
	Count uint32
	// Params is the payload of MsgTrain and MsgTrained. The sender's
	// slice is shared, not copied: nobody may modify it.
	Params []float32
}

// ModelHeader describes the model that follows.
type ModelHeader struct {
	// Arch is the architecture and shape tag (1 to MaxArchLen bytes).
	Arch string
	// NumParams is the length of Params (1 to MaxParams).
	NumParams uint32
	// DataSize is the trainer's |D| (MsgTrained only, >= 1), the
	// aggregator's FedAvg weight; 0 in MsgTrain.
	DataSize uint64
}

// PayloadBytes is the size of the payload after the header: 4 bytes per
// parameter for MsgTrain and MsgTrained, 0 for MsgAggregated and MsgOver.
func (m Message) PayloadBytes() int64 {
	if !m.Type.carriesModel() {
		return 0
	}
	return 4 * int64(m.Model.NumParams)
}
