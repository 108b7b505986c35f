package plexus

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/peerlearn/peerlearn/internal/wire"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A Digest is a piece of a peer's membership view, pushed to its overlay
// neighbours so that every view converges to the same member set (the
// samples and aggregators of Algorithm 1 agree only between equal
// views). It is not one of Algorithm 2's messages: the paper assumes the
// views are given; a real peer has to build its own.
//
// Wire format, big-endian, version CodecVersion:
//
//	version   u8   CodecVersion
//	type      u8   DigestType
//	from      [32] sender ID
//	newest    u64  0..MaxRound, the newest round the sender knows aggregated
//	count     u16  1..MaxDigestMembers
//	count x   (id [32], bandwidth u64 >= 1), IDs strictly increasing
//
// DigestType lies outside MsgType's values, so Decode refuses a digest
// and DecodeDigest refuses everything else.
type Digest struct {
	From ident.Peer
	// Newest is the newest round the sender knows was aggregated (0:
	// none): a peer outside the last rounds' samples learns from it that
	// training went on, or ended.
	Newest  uint64
	Members []Member
}

const (
	// DigestType is a digest's type byte.
	DigestType = 0x40
	// MaxDigestMembers bounds the members one digest carries (10 KiB).
	MaxDigestMembers = 256
	digestEntry      = 32 + 8
	digestHead       = 2 + 32 + 8 + 2
)

// IsDigest reports whether b claims to be a digest (its type byte): the
// caller then decodes it with DecodeDigest, else with Decode.
func IsDigest(b []byte) bool { return len(b) >= 2 && b[1] == DigestType }

// EncodeDigest returns d's wire form; it refuses what DecodeDigest would.
func EncodeDigest(d Digest) ([]byte, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	w := wire.Writer{B: make([]byte, 0, digestHead+digestEntry*len(d.Members))}
	w.U8(CodecVersion)
	w.U8(DigestType)
	w.Bytes(d.From[:])
	w.U64(d.Newest)
	w.U16(uint16(len(d.Members)))
	for _, m := range d.Members {
		w.Bytes(m.ID[:])
		w.U64(m.Bandwidth)
	}
	return w.B, nil
}

// DecodeDigest parses a digest. It accepts exactly what EncodeDigest
// produces.
func DecodeDigest(b []byte) (Digest, error) {
	var d Digest
	if len(b) > digestHead+digestEntry*MaxDigestMembers {
		return d, fmt.Errorf("%w: digest of %d bytes", ErrOversized, len(b))
	}
	r := wire.NewReader(b)
	v, t := r.U8(), r.U8()
	r.Fill(d.From[:])
	d.Newest = r.U64()
	n := int(r.U16())
	if r.OK() && v != CodecVersion {
		return Digest{}, fmt.Errorf("%w: %d", ErrCodecVersion, v)
	}
	if r.OK() && t != DigestType {
		return Digest{}, fmt.Errorf("%w: %d is not a digest", ErrUnknownType, t)
	}
	if r.OK() && (n == 0 || n > MaxDigestMembers) {
		return Digest{}, fmt.Errorf("%w: %d members", ErrField, n)
	}
	if r.OK() {
		d.Members = make([]Member, 0, min(n, r.Len()/digestEntry))
	}
	for i := 0; i < n && r.OK(); i++ {
		var m Member
		r.Fill(m.ID[:])
		m.Bandwidth = r.U64()
		d.Members = append(d.Members, m)
	}
	if err := r.Done(); err != nil {
		if errors.Is(err, wire.ErrTrailing) {
			return Digest{}, fmt.Errorf("%w: %v", ErrTrailing, err)
		}
		return Digest{}, fmt.Errorf("%w: %v", ErrTruncated, err)
	}
	if err := d.check(); err != nil {
		return Digest{}, err
	}
	return d, nil
}

// check: a sender, 1 to MaxDigestMembers members with non-zero IDs and
// bandwidths, IDs strictly increasing (one canonical form, no repeats).
func (d Digest) check() error {
	switch {
	case d.From == ident.Peer{}:
		return fmt.Errorf("%w: digest from the zero ID", ErrField)
	case d.Newest > MaxRound:
		return fmt.Errorf("%w: digest of round %d", ErrField, d.Newest)
	case len(d.Members) == 0 || len(d.Members) > MaxDigestMembers:
		return fmt.Errorf("%w: digest of %d members", ErrField, len(d.Members))
	}
	for i, m := range d.Members {
		switch {
		case m.ID == ident.Peer{} || m.Bandwidth == 0:
			return fmt.Errorf("%w: member %d: %v with bandwidth %d", ErrField, i, m.ID, m.Bandwidth)
		case i > 0 && bytes.Compare(d.Members[i-1].ID[:], m.ID[:]) >= 0:
			return fmt.Errorf("%w: members not in strictly increasing ID order at %d", ErrField, i)
		}
	}
	return nil
}
