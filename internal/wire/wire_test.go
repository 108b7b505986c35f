package wire

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// sample is a record of every field kind, in the layout encode writes.
type sample struct {
	a   uint8
	b   uint16
	c   uint32
	d   uint64
	f   float64
	id  [4]byte
	tag string
}

func (s sample) encode(dst []byte) []byte {
	w := Writer{B: dst}
	w.U8(s.a)
	w.U16(s.b)
	w.U32(s.c)
	w.U64(s.d)
	w.F64(s.f)
	w.Bytes(s.id[:])
	w.U8(uint8(len(s.tag)))
	w.String(s.tag)
	return w.B
}

func decode(b []byte) (sample, error) {
	var s sample
	r := NewReader(b)
	s.a = r.U8()
	s.b = r.U16()
	s.c = r.U32()
	s.d = r.U64()
	s.f = r.F64()
	r.Fill(s.id[:])
	s.tag = r.String(int(r.U8()))
	return s, r.Done()
}

func TestWriterLayout(t *testing.T) {
	s := sample{a: 1, b: 0x0203, c: 0x04050607, d: 0x08090a0b0c0d0e0f, f: 1.5, id: [4]byte{'i', 'd', 'i', 'd'}, tag: "ab"}
	want := []byte{
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
		0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
		0x3f, 0xf8, 0, 0, 0, 0, 0, 0,
		'i', 'd', 'i', 'd', 2, 'a', 'b',
	}
	got := s.encode([]byte{0xff})
	if !bytes.Equal(got, append([]byte{0xff}, want...)) {
		t.Fatalf("encoded % x, want ff % x", got, want)
	}
	back, err := decode(got[1:])
	if err != nil || back != s {
		t.Fatalf("decoded %+v, %v; want %+v", back, err, s)
	}
}

func TestReaderTruncatedIsSticky(t *testing.T) {
	r := NewReader([]byte{1, 2, 3})
	if v := r.U16(); v != 0x0102 || !r.OK() {
		t.Fatalf("U16 = %#x, ok %v", v, r.OK())
	}
	if v := r.U32(); v != 0 || r.OK() {
		t.Fatalf("short U32 = %#x, ok %v", v, r.OK())
	}
	if v := r.U8(); v != 0 {
		t.Fatalf("U8 after an error = %d, want 0", v)
	}
	if p := r.Next(0); p != nil {
		t.Fatalf("Next after an error = %v, want nil", p)
	}
	if err := r.Done(); !errors.Is(err, ErrTruncated) || !errors.Is(r.Err(), ErrTruncated) {
		t.Fatalf("Done = %v, Err = %v; want ErrTruncated", err, r.Err())
	}
}

func TestReaderNegativeLength(t *testing.T) {
	r := NewReader([]byte{1})
	if p := r.Next(-1); p != nil || !errors.Is(r.Err(), ErrTruncated) {
		t.Fatalf("Next(-1) = %v, err %v", p, r.Err())
	}
}

func TestReaderDoneTrailing(t *testing.T) {
	r := NewReader([]byte{1, 2})
	r.U8()
	if err := r.Done(); !errors.Is(err, ErrTrailing) || r.Len() != 1 {
		t.Fatalf("Done = %v, Len %d; want ErrTrailing, 1", err, r.Len())
	}
	r.U8()
	if err := r.Done(); err != nil {
		t.Fatalf("Done after the last byte = %v", err)
	}
}

func TestReaderFailKeepsFirstError(t *testing.T) {
	errBad := errors.New("bad field")
	r := NewReader([]byte{1, 2})
	r.Fail(errBad)
	r.Fail(errors.New("later"))
	if r.U8() != 0 || !errors.Is(r.Done(), errBad) {
		t.Fatalf("after Fail: Done = %v", r.Done())
	}
}

func TestReaderNextAliasesWithCappedCapacity(t *testing.T) {
	in := []byte{1, 2, 3}
	r := NewReader(in)
	p := r.Next(2)
	if cap(p) != 2 {
		t.Fatalf("cap = %d, want 2", cap(p))
	}
	p[0] = 9
	if in[0] != 9 {
		t.Fatal("Next does not alias the input")
	}
}

func TestF64Bits(t *testing.T) {
	nan := math.Float64frombits(0x7ff8000000000001)
	w := Writer{}
	w.F64(nan)
	r := NewReader(w.B)
	if got := math.Float64bits(r.F64()); got != 0x7ff8000000000001 {
		t.Fatalf("NaN bits %#x", got)
	}
}

// FuzzReader checks that whatever decodes re-encodes to the same bytes,
// and that anything else is refused with ErrTruncated or ErrTrailing.
func FuzzReader(f *testing.F) {
	f.Add(sample{tag: "x"}.encode(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decode(b)
		if err != nil {
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrTrailing) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if out := s.encode(nil); !bytes.Equal(out, b) {
			t.Fatalf("re-encoded % x, input % x", out, b)
		}
	})
}
