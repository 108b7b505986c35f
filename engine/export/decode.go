package export

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// ErrFormat: the bytes are not a well-formed safetensors file.
var ErrFormat = errors.New("export: malformed safetensors file")

// MaxHeader bounds a safetensors JSON header, as the reference reader
// does (100 MB).
const MaxHeader = 100 << 20

// maxRank and maxDim bound a tensor's dimension count and each dimension.
const (
	maxRank = 32
	maxDim  = 1 << 40
)

// dtypeSize is the byte width of each safetensors dtype.
var dtypeSize = map[string]int{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
	"I16": 2, "U16": 2, "F16": 2, "BF16": 2,
	"I32": 4, "U32": 4, "F32": 4,
	"I64": 8, "U64": 8, "F64": 8,
}

// Entry is one tensor of a safetensors file.
type Entry struct {
	Name  string
	DType string
	Shape []int
	// Begin and End are the tensor's byte range in the data buffer.
	Begin, End int
}

// File is a decoded safetensors file.
type File struct {
	Metadata map[string]string
	// Tensors are in header order.
	Tensors []Entry
	data    []byte
}

// Data returns the raw little-endian bytes of e, a view of the file.
func (f *File) Data(e Entry) []byte { return f.data[e.Begin:e.End:e.End] }

// Decode parses a safetensors file strictly: the header length within
// the file and MaxHeader; the header valid UTF-8 JSON, one object and
// nothing after it but spaces; no key twice; __metadata__, if present, an
// object of strings; each tensor exactly "dtype" (a known one), "shape"
// (non-negative integers) and "data_offsets" ([begin, end] with end -
// begin the shape's byte size); and the tensors tiling the data buffer
// with neither gap nor overlap. Errors wrap ErrFormat.
func Decode(b []byte) (*File, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the header length", ErrFormat, len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n > MaxHeader || n > uint64(len(b)-8) {
		return nil, fmt.Errorf("%w: header of %d bytes in a file of %d (limit %d)", ErrFormat, n, len(b), MaxHeader)
	}
	header, data := b[8:8+n], b[8+n:]
	if len(header) == 0 || header[0] != '{' {
		return nil, fmt.Errorf("%w: header does not start with '{'", ErrFormat)
	}
	if !utf8.Valid(header) {
		return nil, fmt.Errorf("%w: header is not valid UTF-8", ErrFormat)
	}
	f := &File{data: data}
	dec := json.NewDecoder(bytes.NewReader(header))
	dec.UseNumber()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: header: %s", ErrFormat, fmt.Sprintf(format, args...))
	}
	err := objectKeys(dec, func(key string) error {
		if key == "__metadata__" {
			if f.Metadata != nil {
				return bad("__metadata__ twice")
			}
			f.Metadata = map[string]string{}
			return objectKeys(dec, func(k string) error {
				var v string
				if err := decodeTyped(dec, '"', &v); err != nil {
					return bad("__metadata__ %q: %v", k, err)
				}
				f.Metadata[k] = v
				return nil
			})
		}
		e, err := decodeEntry(dec, key, len(data))
		if err != nil {
			return err
		}
		f.Tensors = append(f.Tensors, e)
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrFormat) {
			return nil, err
		}
		return nil, bad("%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad("data after the header object")
	}
	return f, checkTiling(f.Tensors, len(data))
}

// objectKeys reads one JSON object, calling each for every key with the
// decoder before its value (which each must consume); a key seen twice
// is an error.
func objectKeys(dec *json.Decoder, each func(key string) error) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("want an object, got %v (%v)", t, err)
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := t.(string)
		if !ok {
			return fmt.Errorf("key %v is not a string", t)
		}
		if seen[key] {
			return fmt.Errorf("key %q twice", key)
		}
		seen[key] = true
		if err := each(key); err != nil {
			return err
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return fmt.Errorf("object not closed: %v (%v)", t, err)
	}
	return nil
}

// decodeTyped decodes the next value into v after checking that its first
// byte is first ('"' for a string, '[' for an array): no null, no
// number where a string belongs.
func decodeTyped(dec *json.Decoder, first byte, v any) error {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	if len(raw) == 0 || raw[0] != first {
		return fmt.Errorf("want a value starting with %q, got %.20q", first, raw)
	}
	return json.Unmarshal(raw, v)
}

// decodeEntry reads one tensor's object.
func decodeEntry(dec *json.Decoder, name string, dataLen int) (Entry, error) {
	e := Entry{Name: name}
	var shape, offsets []uint64
	have := 0
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: tensor %q: %s", ErrFormat, name, fmt.Sprintf(format, args...))
	}
	err := objectKeys(dec, func(k string) error {
		var err error
		switch k {
		case "dtype":
			err = decodeTyped(dec, '"', &e.DType)
		case "shape":
			err = decodeTyped(dec, '[', &shape)
		case "data_offsets":
			err = decodeTyped(dec, '[', &offsets)
		default:
			return bad("unknown field %q", k)
		}
		if err != nil {
			return bad("%s: %v", k, err)
		}
		have++
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrFormat) {
			return Entry{}, err
		}
		return Entry{}, bad("%v", err)
	}
	if have != 3 {
		return Entry{}, bad("want dtype, shape and data_offsets")
	}
	size, ok := dtypeSize[e.DType]
	if !ok {
		return Entry{}, bad("unknown dtype %q", e.DType)
	}
	if len(shape) > maxRank {
		return Entry{}, bad("%d dimensions, at most %d", len(shape), maxRank)
	}
	bytes, tooBig := uint64(size), false
	for _, d := range shape {
		if d > maxDim {
			return Entry{}, bad("dimension %d, at most %d", d, maxDim)
		}
		e.Shape = append(e.Shape, int(d))
		hi, lo := bits.Mul64(bytes, d)
		tooBig = tooBig || hi != 0
		bytes = lo
	}
	if slices.Contains(shape, 0) {
		bytes, tooBig = 0, false
	}
	if tooBig {
		return Entry{}, bad("shape %v overflows", shape)
	}
	if len(offsets) != 2 || offsets[0] > offsets[1] || offsets[1] > uint64(dataLen) {
		return Entry{}, bad("data_offsets %v outside the %d-byte buffer", offsets, dataLen)
	}
	if offsets[1]-offsets[0] != bytes {
		return Entry{}, bad("data_offsets %v hold %d bytes, %s%v needs %d", offsets, offsets[1]-offsets[0], e.DType, shape, bytes)
	}
	e.Begin, e.End = int(offsets[0]), int(offsets[1])
	return e, nil
}

// checkTiling checks that the tensors cover the buffer exactly once.
func checkTiling(ts []Entry, dataLen int) error {
	s := slices.Clone(ts)
	slices.SortFunc(s, func(a, b Entry) int { return a.Begin - b.Begin })
	at := 0
	for _, e := range s {
		if e.Begin != at {
			return fmt.Errorf("%w: tensor %q starts at byte %d of the buffer, the previous one ends at %d", ErrFormat, e.Name, e.Begin, at)
		}
		at = e.End
	}
	if at != dataLen {
		return fmt.Errorf("%w: the tensors end at byte %d of a %d-byte buffer", ErrFormat, at, dataLen)
	}
	return nil
}
