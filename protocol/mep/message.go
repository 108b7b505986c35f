package mep

import (
	"encoding/hex"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Fingerprint identifies a model: SHA-256 over its parameters (and
// Hessian, if sent), see FingerprintOf. The zero value means no model.
type Fingerprint [32]byte

// String returns the first 8 hex digits.
func (f Fingerprint) String() string { return hex.EncodeToString(f[:4]) }

// Message is one MEP message. The codec encodes everything but To,
// Params and Hessian: To is the transport's address, the vectors its
// payload.
type Message struct {
	Type MsgType
	// From is the sender.
	From ident.Peer
	// To is the receiver (not encoded; zero after Decode).
	To ident.Peer
	// Version is the sender's model counter (MsgOffer, MsgModel) or the
	// offered version being answered (MsgHave, MsgNeed). Versions start
	// at 1 and grow with every model a peer publishes.
	Version uint64
	// Fingerprint is the model's fingerprint (all types).
	Fingerprint Fingerprint
	// Model is the header of a MsgModel.
	Model ModelHeader
	// Params and Hessian are a MsgModel's payload. The sender's slices
	// are shared, not copied: nobody may modify them.
	Params  []float32
	Hessian []float32
}

// ModelHeader describes a model being sent and its sender.
type ModelHeader struct {
	// Task is the sender's task hash.
	Task ident.Task
	// Arch is the architecture and shape tag.
	Arch string
	// NumParams is the length of Params.
	NumParams uint32
	// HasHessian says a Hessian diagonal of NumParams entries follows
	// the parameters.
	HasHessian bool
	// DataSize is the sender's |D| (DecAvg and DecHW weights).
	DataSize uint64
	// Period is the sender's period T in ticks (FedLay's c_c = 1/T).
	Period uint32
	// DataConf is the sender's data confidence c_d in (0, 1].
	DataConf float64
}

// PayloadBytes is the size of the payload that follows a MsgModel
// header: 4 bytes per parameter, twice that with a Hessian.
func (h ModelHeader) PayloadBytes() int64 {
	n := 4 * int64(h.NumParams)
	if h.HasHessian {
		n *= 2
	}
	return n
}
