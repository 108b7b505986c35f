package wire

import (
	"encoding/binary"
	"math"
)

// Writer appends big-endian fields to B. The zero value appends to a
// nil slice.
type Writer struct {
	B []byte
}

// U8 appends v.
func (w *Writer) U8(v uint8) { w.B = append(w.B, v) }

// U16 appends v, big-endian.
func (w *Writer) U16(v uint16) { w.B = binary.BigEndian.AppendUint16(w.B, v) }

// U32 appends v, big-endian.
func (w *Writer) U32(v uint32) { w.B = binary.BigEndian.AppendUint32(w.B, v) }

// U64 appends v, big-endian.
func (w *Writer) U64(v uint64) { w.B = binary.BigEndian.AppendUint64(w.B, v) }

// F64 appends v's IEEE 754 bits, big-endian.
func (w *Writer) F64(v float64) { w.U64(math.Float64bits(v)) }

// Bytes appends p as is (a fixed-size field, or the body after a length).
func (w *Writer) Bytes(p []byte) { w.B = append(w.B, p...) }

// String appends s as is.
func (w *Writer) String(s string) { w.B = append(w.B, s...) }
