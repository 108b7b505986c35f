package rtc

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/peerlearn/peerlearn/internal/wire"
)

// Model transfers. The sender sends a signed Manifest (KindManifest),
// then the bytes in chunk frames of Manifest.ChunkSize (the last may be
// shorter), each at its offset, pausing while the data channel's buffer
// is above the high-water mark; the receiver assembles them and, once all
// have arrived, checks the SHA-256 before handing the bytes up, and
// answers with a signed Result (KindResult). A transfer that stalls, does
// not hash right, or loses its connection is dropped whole: never
// half-applied. The sender retries a failed transfer (a new transfer ID)
// up to Config.TransferRetries times.
//
//	manifest: v=1 | transfer u64 | size u64 | chunk u32 | sha256[32] | fingerprint[32] | task[32] | len u16 | meta
//	result:   v=1 | transfer u64 | code u8
const (
	// TransferVersion is the manifest/result encoding this build speaks.
	TransferVersion = 1
	// MaxMeta bounds a manifest's metadata (the MEP model header).
	MaxMeta = 4 << 10

	manifestHeader = 1 + 8 + 8 + 4 + 32 + 32 + 32 + 2
)

// Manifest describes a transfer.
type Manifest struct {
	// Transfer names it (per sender; fresh for every attempt).
	Transfer uint64
	// Size is the byte length of the payload (0 is allowed: no chunks).
	Size uint64
	// ChunkSize is the bytes per chunk (the last may be shorter).
	ChunkSize uint32
	// SHA256 is the hash of the payload.
	SHA256 [32]byte
	// Fingerprint is the model's fingerprint (mep.Fingerprint), for the
	// application; the transport does not interpret it.
	Fingerprint [32]byte
	// Task is the task ID the model belongs to.
	Task [32]byte
	// Meta is application metadata (an encoded MEP header).
	Meta []byte
}

// MarshalManifest encodes m.
func MarshalManifest(m Manifest) ([]byte, error) {
	if len(m.Meta) > MaxMeta {
		return nil, fmt.Errorf("%w: manifest meta of %d bytes", ErrTooLarge, len(m.Meta))
	}
	if m.ChunkSize == 0 || m.ChunkSize > MaxFrameSize-chunkHeader {
		return nil, fmt.Errorf("%w: chunk size %d", ErrMalformed, m.ChunkSize)
	}
	b := make([]byte, 0, manifestHeader+len(m.Meta))
	b = append(b, TransferVersion)
	b = binary.BigEndian.AppendUint64(b, m.Transfer)
	b = binary.BigEndian.AppendUint64(b, m.Size)
	b = binary.BigEndian.AppendUint32(b, m.ChunkSize)
	b = append(b, m.SHA256[:]...)
	b = append(b, m.Fingerprint[:]...)
	b = append(b, m.Task[:]...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(m.Meta)))
	return append(b, m.Meta...), nil
}

// UnmarshalManifest decodes b (copying Meta).
func UnmarshalManifest(b []byte) (Manifest, error) {
	r := wire.NewReader(b)
	v := r.U8()
	if r.OK() && v != TransferVersion {
		return Manifest{}, fmt.Errorf("%w: manifest version %d", ErrVersion, v)
	}
	var m Manifest
	m.Transfer = r.U64()
	m.Size = r.U64()
	m.ChunkSize = r.U32()
	r.Fill(m.SHA256[:])
	r.Fill(m.Fingerprint[:])
	r.Fill(m.Task[:])
	n := r.U16()
	if r.OK() && n > MaxMeta {
		return Manifest{}, fmt.Errorf("%w: manifest meta of %d bytes", ErrMalformed, n)
	}
	if meta := r.Next(int(n)); n > 0 {
		m.Meta = append([]byte(nil), meta...)
	}
	if err := r.Err(); err != nil {
		return Manifest{}, readErr(err)
	}
	if r.Len() != 0 {
		return Manifest{}, fmt.Errorf("%w: %d trailing bytes after a manifest", ErrMalformed, r.Len())
	}
	if m.ChunkSize == 0 || m.ChunkSize > MaxFrameSize-chunkHeader {
		return Manifest{}, fmt.Errorf("%w: chunk size %d", ErrMalformed, m.ChunkSize)
	}
	return m, nil
}

// Chunks returns the number of chunks of the payload.
func (m Manifest) Chunks() uint64 {
	return (m.Size + uint64(m.ChunkSize) - 1) / uint64(m.ChunkSize)
}

// ResultCode is a transfer's outcome as the receiver saw it.
type ResultCode uint8

const (
	// ResultOK: every byte arrived and the hash matched; delivered.
	ResultOK ResultCode = 0
	// ResultHashMismatch: the assembled bytes did not hash to the manifest's SHA-256.
	ResultHashMismatch ResultCode = 1
	// ResultTimeout: the transfer stalled (no chunk for TransferTimeout).
	ResultTimeout ResultCode = 2
	// ResultRefused: the manifest was refused (too large, other task,
	// too many transfers at once, duplicate ID).
	ResultRefused ResultCode = 3
	// ResultBadChunk: a chunk did not fit the manifest (offset, length).
	ResultBadChunk ResultCode = 4

	numResultCodes = 5
)

func (c ResultCode) String() string {
	switch c {
	case ResultOK:
		return "ok"
	case ResultHashMismatch:
		return "hash mismatch"
	case ResultTimeout:
		return "timeout"
	case ResultRefused:
		return "refused"
	case ResultBadChunk:
		return "bad chunk"
	}
	return fmt.Sprintf("ResultCode(%d)", uint8(c))
}

// Result answers a transfer.
type Result struct {
	Transfer uint64
	Code     ResultCode
}

// MarshalResult encodes r.
func MarshalResult(r Result) []byte {
	b := []byte{TransferVersion}
	b = binary.BigEndian.AppendUint64(b, r.Transfer)
	return append(b, byte(r.Code))
}

// UnmarshalResult decodes b.
func UnmarshalResult(b []byte) (Result, error) {
	if len(b) != 10 {
		return Result{}, fmt.Errorf("%w: result of %d bytes", ErrMalformed, len(b))
	}
	if b[0] != TransferVersion {
		return Result{}, fmt.Errorf("%w: result version %d", ErrVersion, b[0])
	}
	r := Result{Transfer: binary.BigEndian.Uint64(b[1:9]), Code: ResultCode(b[9])}
	if r.Code >= numResultCodes {
		return Result{}, fmt.Errorf("%w: result code %d", ErrUnknownKind, b[9])
	}
	return r, nil
}

// assembly collects one incoming transfer's chunks. Memory is taken
// lazily, chunk by chunk as the bytes arrive, and each chunk reserves its
// bytes through reserve first (the Manager's resource manager): a
// manifest alone allocates only the per-chunk index, however large a size
// it claims. Not safe for concurrent use.
type assembly struct {
	m       Manifest
	chunks  [][]byte // per chunk; nil until it arrives
	held    int64    // bytes of chunks held (reserved)
	left    uint64   // chunks still missing
	buf     []byte   // the payload, once verify has assembled it
	reserve func(n int64) error
}

// newAssembly checks m against the limits and allocates the chunk index
// (not the payload).
func newAssembly(m Manifest, maxSize int64) (*assembly, error) {
	if m.Size > uint64(maxSize) {
		return nil, fmt.Errorf("%w: transfer of %d bytes, limit %d", ErrTooLarge, m.Size, maxSize)
	}
	n := m.Chunks()
	return &assembly{m: m, chunks: make([][]byte, n), left: n}, nil
}

// add stores one chunk and reports whether the transfer is complete. A
// chunk that is misaligned, of the wrong length or past the end is an
// error (ErrMalformed), one the budget refuses is ErrResource; a
// duplicate is ignored.
func (a *assembly) add(offset uint64, data []byte) (bool, error) {
	cs := uint64(a.m.ChunkSize)
	if offset%cs != 0 || offset >= a.m.Size {
		return false, fmt.Errorf("%w: chunk at offset %d of a %d-byte transfer", ErrMalformed, offset, a.m.Size)
	}
	k := offset / cs
	want := min(cs, a.m.Size-offset)
	if uint64(len(data)) != want {
		return false, fmt.Errorf("%w: chunk %d of %d bytes, want %d", ErrMalformed, k, len(data), want)
	}
	if a.chunks[k] == nil {
		if a.reserve != nil {
			if err := a.reserve(int64(len(data))); err != nil {
				return false, err
			}
		}
		a.chunks[k] = append([]byte(nil), data...)
		a.held += int64(len(data))
		a.left--
	}
	return a.left == 0, nil
}

// verify assembles the complete payload (buf) and checks it against the
// manifest's hash; the chunks are let go either way.
func (a *assembly) verify() error {
	if a.left != 0 {
		return fmt.Errorf("%w: %d chunks missing", ErrTransfer, a.left)
	}
	buf := make([]byte, 0, a.m.Size)
	for _, c := range a.chunks {
		buf = append(buf, c...)
	}
	clear(a.chunks)
	if sha256.Sum256(buf) != a.m.SHA256 {
		return fmt.Errorf("%w: hash mismatch", ErrTransfer)
	}
	a.buf = buf
	return nil
}
