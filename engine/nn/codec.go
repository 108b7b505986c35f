package nn

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/peerlearn/peerlearn/internal/f32"
)

// The serialised form of a model's parameters, format version 1. All
// integers are little-endian.
//
//	offset  size     field
//	0       4        magic "PLNN"
//	4       2        format version (1)
//	6       2        architecture name length L (1..255)
//	8       L        architecture name (Arch.Name)
//	8+L     8        shape checksum (Arch.ShapeChecksum)
//	16+L    8        parameter count N
//	24+L    4*N      parameters, IEEE-754 float32, flat layout order
//	24+L+4N 4        CRC-32C (Castagnoli) of every preceding byte
//
// Decoding checks, in order: length, magic, version, name, count against
// the remaining length, CRC, then that no parameter is NaN or infinite.
const (
	magic         = "PLNN"
	formatVersion = 1
	maxNameLen    = 255
	headerFixed   = 4 + 2 + 2 + 8 + 8 // without the name
	trailerLen    = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Header is the metadata of a serialised model.
type Header struct {
	Version       uint16
	Arch          string
	ShapeChecksum uint64
	Count         int
}

// EncodedLen returns the size of the encoding of count parameters of an
// architecture named name.
func EncodedLen(name string, count int) int { return headerFixed + len(name) + 4*count + trailerLen }

// AppendEncoded appends the encoding of params, for the architecture
// named arch with the given shape checksum, to dst.
func AppendEncoded(dst []byte, arch string, shapeChecksum uint64, params []float32) ([]byte, error) {
	if arch == "" || len(arch) > maxNameLen {
		return nil, fmt.Errorf("%w: architecture name must be 1..%d bytes, got %d", ErrConfig, maxNameLen, len(arch))
	}
	if i := f32.FirstNonFinite(params); i >= 0 {
		return nil, fmt.Errorf("%w: parameter %d is %v", ErrNonFinite, i, params[i])
	}
	start := len(dst)
	dst = append(dst, magic...)
	dst = binary.LittleEndian.AppendUint16(dst, formatVersion)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(arch)))
	dst = append(dst, arch...)
	dst = binary.LittleEndian.AppendUint64(dst, shapeChecksum)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(params)))
	for _, v := range params {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
	}
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli)), nil
}

// Decode parses an encoding made by AppendEncoded and returns its header
// and parameters. Any damage is an error wrapping ErrFormat, ErrVersion,
// ErrChecksum or ErrNonFinite; it never panics.
func Decode(data []byte) (Header, []float32, error) {
	h, body, err := decodeHeader(data)
	if err != nil {
		return Header{}, nil, err
	}
	params := make([]float32, h.Count)
	for i := range params {
		params[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[4*i:]))
	}
	if i := f32.FirstNonFinite(params); i >= 0 {
		return Header{}, nil, fmt.Errorf("%w: parameter %d is %v", ErrNonFinite, i, params[i])
	}
	return h, params, nil
}

// decodeHeader validates everything but the parameter values and returns
// the header and the parameter bytes.
func decodeHeader(data []byte) (Header, []byte, error) {
	if len(data) < headerFixed+trailerLen {
		return Header{}, nil, fmt.Errorf("%w: %d bytes, shorter than any model", ErrFormat, len(data))
	}
	if string(data[:4]) != magic {
		return Header{}, nil, fmt.Errorf("%w: bad magic %q", ErrFormat, data[:4])
	}
	h := Header{Version: binary.LittleEndian.Uint16(data[4:])}
	if h.Version != formatVersion {
		return Header{}, nil, fmt.Errorf("%w: version %d, this code reads %d", ErrVersion, h.Version, formatVersion)
	}
	nameLen := int(binary.LittleEndian.Uint16(data[6:]))
	if nameLen == 0 || nameLen > maxNameLen {
		return Header{}, nil, fmt.Errorf("%w: architecture name length %d", ErrFormat, nameLen)
	}
	rest := data[8:]
	if len(rest) < nameLen+16+trailerLen {
		return Header{}, nil, fmt.Errorf("%w: truncated header", ErrFormat)
	}
	h.Arch = string(rest[:nameLen])
	rest = rest[nameLen:]
	h.ShapeChecksum = binary.LittleEndian.Uint64(rest)
	count := binary.LittleEndian.Uint64(rest[8:])
	rest = rest[16:]
	if avail := uint64(len(rest)-trailerLen) / 4; count != avail || len(rest)-trailerLen != 4*int(avail) {
		return Header{}, nil, fmt.Errorf("%w: header says %d parameters, %d bytes follow it", ErrFormat, count, len(rest))
	}
	h.Count = int(count)
	end := len(data) - trailerLen
	if got, want := crc32.Checksum(data[:end], castagnoli), binary.LittleEndian.Uint32(data[end:]); got != want {
		return Header{}, nil, fmt.Errorf("%w: crc32c %08x, stored %08x", ErrChecksum, got, want)
	}
	return h, rest[:end-(len(data)-len(rest))], nil
}

// MarshalBinary encodes the model's parameters (see AppendEncoded).
func (m *Model) MarshalBinary() ([]byte, error) {
	return AppendEncoded(make([]byte, 0, EncodedLen(m.arch.Name, len(m.params))), m.arch.Name, m.sum, m.params)
}

// WriteTo writes the encoding of the model's parameters to w.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	b, err := m.MarshalBinary()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// UnmarshalBinary loads parameters encoded for this model's architecture.
// A different name, shape checksum or count is an error wrapping
// ErrMismatch; on any error the model is unchanged.
func (m *Model) UnmarshalBinary(data []byte) error {
	h, params, err := Decode(data)
	if err != nil {
		return err
	}
	if h.Arch != m.arch.Name || h.ShapeChecksum != m.sum || h.Count != len(m.params) {
		return fmt.Errorf("%w: encoding is %s (checksum %016x, %d parameters), model is %s (checksum %016x, %d parameters)",
			ErrMismatch, h.Arch, h.ShapeChecksum, h.Count, m.arch.Name, m.sum, len(m.params))
	}
	copy(m.params, params)
	return nil
}
