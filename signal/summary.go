package signal

import (
	"context"
	"crypto/ed25519"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/types/ident"
)

// A summary is what a peer says about its own training, for the task's
// page and the operator's /metrics (issue #24 item 7): opt-in, at a low
// rate, and never needed for training. It is signed with the peer's key,
// so a summary is the peer's own claim wherever it is read; the server
// still treats every field as a claim (it bounds what a summary can add
// and takes the median of accuracies), since a peer may lie about itself.

// Summary limits.
const (
	// MaxSummaryRound bounds Summary.Round.
	MaxSummaryRound = 1 << 40
	// MaxSummarySamples bounds Summary.Samples.
	MaxSummarySamples = 1 << 50
)

// summaryDomain separates summary signatures from any other use of the key.
const summaryDomain = "peerlearn/signal summary v1\x00"

// Summary is a peer's progress in its task.
type Summary struct {
	// Seq numbers the peer's summaries: each is higher than the last
	// (the server refuses a replayed or reordered one).
	Seq uint64 `json:"seq"`
	// Round is the peer's training rounds so far.
	Round uint64 `json:"round"`
	// Accuracy is its last test accuracy, 0 to 1; -1 before its first
	// evaluation.
	Accuracy float64 `json:"accuracy"`
	// Samples is the training samples it has processed since it started.
	Samples uint64 `json:"samples"`
	// BytesOut is what it has sent to other peers since it started.
	BytesOut uint64 `json:"bytes_out"`
	// Signature is ed25519 over SummaryMessage(task, peer, the fields).
	Signature []byte `json:"sig"`
}

func (s *Summary) validate() error {
	switch {
	case s.Accuracy != -1 && !(s.Accuracy >= 0 && s.Accuracy <= 1):
		return malformed("summary accuracy %v, want 0 to 1 or -1", s.Accuracy)
	case s.Round > MaxSummaryRound:
		return malformed("summary round %d, limit %d", s.Round, uint64(MaxSummaryRound))
	case s.Samples > MaxSummarySamples:
		return malformed("summary samples %d, limit %d", s.Samples, uint64(MaxSummarySamples))
	case len(s.Signature) != ed25519.SignatureSize:
		return malformed("summary signature of %d bytes, want %d", len(s.Signature), ed25519.SignatureSize)
	}
	return nil
}

// SummaryMessage is the byte string a summary signs: a domain tag, the
// task and peer IDs and the fields in a fixed binary layout.
func SummaryMessage(t ident.Task, peer ident.Peer, s *Summary) []byte {
	b := make([]byte, 0, len(summaryDomain)+len(t)+len(peer)+5*8)
	b = append(b, summaryDomain...)
	b = append(b, t[:]...)
	b = append(b, peer[:]...)
	for _, v := range []uint64{s.Seq, s.Round, math.Float64bits(s.Accuracy), s.Samples, s.BytesOut} {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return b
}

// SignSummary sets s.Signature: id's signature for task t.
func SignSummary(id Identity, t ident.Task, s *Summary) {
	s.Signature = id.Sign(SummaryMessage(t, id.ID(), s))
}

// VerifySummary checks s's signature by the key pub (whose hash is the
// peer's ID) for task t; errors wrap ErrBadSignature.
func VerifySummary(pub ed25519.PublicKey, t ident.Task, s *Summary) error {
	if len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: key of %d bytes", ErrBadSignature, len(pub))
	}
	if !ed25519.Verify(pub, SummaryMessage(t, ident.PeerFromPublicKey(pub), s), s.Signature) {
		return fmt.Errorf("%w: summary signature", ErrBadSignature)
	}
	return nil
}

// SendSummary sends a signed summary (SignSummary) to the server.
func (c *Client) SendSummary(ctx context.Context, s *Summary) error {
	return c.write(ctx, &Message{Type: MsgSummary, Summary: s})
}
