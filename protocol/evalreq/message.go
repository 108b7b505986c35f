package evalreq

import "github.com/peerlearn/peerlearn/types/ident"

// Message is one evaluation message. The codec encodes everything but To
// and Params: To is the transport's address, Params its payload.
type Message struct {
	Type MsgType
	// From is the sender.
	From ident.Peer
	// To is the receiver (not encoded; zero after Decode).
	To ident.Peer
	// ReqID names the request, chosen by the requester (non-zero) and
	// echoed by the reply.
	ReqID uint64
	// Round is the requester's selection round, echoed by the reply (for
	// logs; the protocol does not interpret it).
	Round uint64
	// Model is a request's model header.
	Model ModelHeader
	// Params is a request's payload: Model.NumParams parameters. The
	// sender's slice is shared, not copied: nobody may modify it.
	Params []float32
	// Loss, Accuracy and Samples are a result: the mean loss (finite,
	// >= 0) and the accuracy (in [0, 1]) of the requester's model on
	// Samples (>= 1) of the responder's training examples.
	Loss     float64
	Accuracy float64
	Samples  uint32
	// Reason says why a request was refused (MsgEvalRefused).
	Reason Reason
}

// ModelHeader describes the model to evaluate.
type ModelHeader struct {
	// Arch is the architecture and shape tag (1 to MaxArchLen bytes).
	Arch string
	// NumParams is the length of Params (1 to MaxParams).
	NumParams uint32
}

// PayloadBytes is the size of the payload that follows a request header:
// 4 bytes per parameter; 0 for the other types.
func (m Message) PayloadBytes() int64 {
	if m.Type != MsgEvalRequest {
		return 0
	}
	return 4 * int64(m.Model.NumParams)
}
