package wire

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Reader consumes a byte slice front to back. The first read past the
// end sets a sticky error (wrapping ErrTruncated); from then on every
// read returns zero values and nil slices, so a decoder can read all its
// fields and check Err or Done once.
type Reader struct {
	b   []byte
	err error
}

// NewReader returns a Reader over b. Slices it returns alias b.
func NewReader(b []byte) Reader { return Reader{b: b} }

// Next returns the next n bytes (capacity n, aliasing the input), or nil
// after an error or when fewer than n bytes remain.
func (r *Reader) Next(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = fmt.Errorf("%w: want %d more bytes, have %d", ErrTruncated, n, len(r.b))
		r.b = nil
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// U8 reads one byte.
func (r *Reader) U8() uint8 {
	if v := r.Next(1); v != nil {
		return v[0]
	}
	return 0
}

// U16 reads a big-endian uint16.
func (r *Reader) U16() uint16 {
	if v := r.Next(2); v != nil {
		return binary.BigEndian.Uint16(v)
	}
	return 0
}

// U32 reads a big-endian uint32.
func (r *Reader) U32() uint32 {
	if v := r.Next(4); v != nil {
		return binary.BigEndian.Uint32(v)
	}
	return 0
}

// U64 reads a big-endian uint64.
func (r *Reader) U64() uint64 {
	if v := r.Next(8); v != nil {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

// F64 reads a float64 from its big-endian IEEE 754 bits.
func (r *Reader) F64() float64 { return math.Float64frombits(r.U64()) }

// Fill reads len(p) bytes into p (a fixed-size field such as an ID); on
// a short read p is left unchanged.
func (r *Reader) Fill(p []byte) { copy(p, r.Next(len(p))) }

// String reads n bytes as a string ("" on a short read).
func (r *Reader) String(n int) string { return string(r.Next(n)) }

// Fail sets the sticky error to err unless one is set already, so a
// decoder can stop on a bad field the same way as on a short read.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
		r.b = nil
	}
}

// OK reports whether no read has failed.
func (r *Reader) OK() bool { return r.err == nil }

// Err returns the sticky error, or nil.
func (r *Reader) Err() error { return r.err }

// Len returns the number of unread bytes.
func (r *Reader) Len() int { return len(r.b) }

// Done returns the sticky error, or an error wrapping ErrTrailing if
// bytes are left unread, or nil when the input was consumed exactly.
func (r *Reader) Done() error {
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%w: %d bytes", ErrTrailing, len(r.b))
	}
	return nil
}
