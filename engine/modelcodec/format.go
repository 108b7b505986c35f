package modelcodec

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// Wire form, header big-endian, bulk little-endian (like the float32
// payload it replaces):
//
//	version u8   FormatVersion
//	kind    u8   a Kind
//	n       u32  parameter count, 1..MaxParams
//	ref     [32] (delta kinds) digest of the reference x̂; all zero for
//	             the zero model (a link's first, full model: ChocoSGD's
//	             x̂ starts at 0)
//	body:
//	  F32        n × f32
//	  F16        n × f16
//	  Int8,      block u16 (MinBlock..MaxBlock), ceil(n/block) × f32
//	  DeltaInt8  scales (finite, 0 <= 127·scale <= MaxAbs), n × i8 (-127..127)
//	  DeltaInt4  block u16, scales as above (0 <= 7·scale <= MaxAbs),
//	             ceil(n/2) bytes, two 4-bit values (-7..7) each, low
//	             nibble first, an odd n's last nibble 0
//	  DeltaTopK  k u32 (1..n), k index gaps as uvarints (strictly
//	             increasing indices below n), k × f16 values (finite)
const (
	// FormatVersion is the version byte written and required.
	FormatVersion = 1
	// MaxParams bounds a parameter count (as internal/modelwire does).
	MaxParams = 1 << 26

	headerSize = 1 + 1 + 4
)

// Header is what a payload says about itself before its body.
type Header struct {
	Kind Kind
	// N is the parameter count.
	N int
	// Ref is the reference's digest (delta kinds).
	Ref nn.Digest
}

// PeekHeader reads a payload's header, so a receiver can find the
// reference a delta needs.
func PeekHeader(p []byte) (Header, error) {
	var h Header
	if len(p) < headerSize {
		return h, fmt.Errorf("%w: %d bytes, no header", ErrLength, len(p))
	}
	if p[0] != FormatVersion {
		return h, fmt.Errorf("%w: %d", ErrVersion, p[0])
	}
	h.Kind = Kind(p[1])
	if !h.Kind.known() {
		return h, fmt.Errorf("%w: %d", ErrKind, p[1])
	}
	n := binary.BigEndian.Uint32(p[2:])
	if n == 0 || n > MaxParams {
		return h, fmt.Errorf("%w: %d parameters", ErrLength, n)
	}
	h.N = int(n)
	if h.Kind.Delta() {
		if len(p) < headerSize+len(h.Ref) {
			return h, fmt.Errorf("%w: no reference digest", ErrLength)
		}
		copy(h.Ref[:], p[headerSize:])
	}
	return h, nil
}

func (h Header) size() int {
	if h.Kind.Delta() {
		return headerSize + len(h.Ref)
	}
	return headerSize
}

func appendHeader(dst []byte, h Header) []byte {
	dst = append(dst, FormatVersion, byte(h.Kind))
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.N))
	if h.Kind.Delta() {
		dst = append(dst, h.Ref[:]...)
	}
	return dst
}

// Encode appends the encoding of x. For a delta kind ref is x̂ (len
// len(x)) and refDigest its digest, or ref nil and refDigest zero for
// the zero model; for the others ref is ignored.
func Encode(dst []byte, cfg Config, x, ref []float32, refDigest nn.Digest) ([]byte, error) {
	cfg, err := cfg.Normalize()
	if err != nil {
		return dst, err
	}
	if len(x) == 0 || len(x) > MaxParams {
		return dst, fmt.Errorf("%w: %d parameters", ErrLength, len(x))
	}
	h := Header{Kind: cfg.Kind, N: len(x), Ref: refDigest}
	v := x
	if cfg.Kind.Delta() && ref == nil && refDigest == (nn.Digest{}) {
		ref = make([]float32, len(x))
	}
	if cfg.Kind.Delta() {
		if len(ref) != len(x) {
			return dst, fmt.Errorf("%w: reference of %d parameters for %d", ErrLength, len(ref), len(x))
		}
		v = make([]float32, len(x))
		for i := range x {
			v[i] = x[i] - ref[i]
		}
	}
	dst = appendHeader(dst, h)
	switch cfg.Kind {
	case F32:
		for _, f := range v {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
		}
	case F16:
		for _, f := range v {
			dst = binary.LittleEndian.AppendUint16(dst, toHalf(clampHalf(f)))
		}
	case Int8, DeltaInt8:
		dst = appendQuant(dst, v, cfg.Block, 127)
	case DeltaInt4:
		dst = appendQuant(dst, v, cfg.Block, 7)
	case DeltaTopK:
		dst = appendTopK(dst, v, cfg.TopK)
	}
	return dst, nil
}

// appendQuant writes per-block scales then each value rounded to a
// signed integer in [-levels, levels]: a byte each for 127 levels, a
// nibble each for 7.
func appendQuant(dst []byte, v []float32, block int, levels int) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(block))
	nb := (len(v) + block - 1) / block
	scales := make([]float32, nb)
	for b := range nb {
		var m float32
		for _, f := range v[b*block : min(len(v), (b+1)*block)] {
			if a := float32(math.Abs(float64(f))); a > m {
				m = a
			}
		}
		scales[b] = min(m, MaxAbs) / float32(levels)
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(scales[b]))
	}
	lv := float64(levels)
	quant := func(i int) int8 {
		s := scales[i/block]
		var q float64
		if s > 0 {
			q = math.RoundToEven(float64(v[i]) / float64(s))
		}
		return int8(max(-lv, min(lv, q)))
	}
	if levels == 127 {
		for i := range v {
			dst = append(dst, byte(quant(i)))
		}
		return dst
	}
	for i := 0; i < len(v); i += 2 {
		b := byte(quant(i)) & 0xf
		if i+1 < len(v) {
			b |= byte(quant(i+1)) << 4
		}
		dst = append(dst, b)
	}
	return dst
}

// appendTopK writes the k = ceil(frac·n) entries of largest magnitude.
func appendTopK(dst []byte, v []float32, frac float64) []byte {
	k := max(1, min(len(v), int(math.Ceil(frac*float64(len(v))))))
	idx := make([]int32, len(v))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		fa, fb := math.Abs(float64(v[a])), math.Abs(float64(v[b]))
		switch {
		case fa > fb:
			return -1
		case fa < fb:
			return 1
		}
		return int(a - b)
	})
	idx = idx[:k]
	slices.Sort(idx)
	dst = binary.BigEndian.AppendUint32(dst, uint32(k))
	prev := int32(-1)
	for _, i := range idx {
		dst = binary.AppendUvarint(dst, uint64(i-prev-1))
		prev = i
	}
	for _, i := range idx {
		dst = binary.LittleEndian.AppendUint16(dst, toHalf(clampHalf(v[i])))
	}
	return dst
}

// Decode reconstructs the parameters p encodes, which must number n. For
// a delta, ref is the receiver's x̂ whose digest the header names (see
// PeekHeader; a zero digest names the zero model, and ref is not read);
// it is only read. Every float32 operation is rounded on its
// own (explicit conversions), so a sender decoding its own payload gets
// the receiver's copy bit for bit.
func Decode(p []byte, n int, ref []float32) ([]float32, error) {
	h, err := PeekHeader(p)
	if err != nil {
		return nil, err
	}
	if h.N != n {
		return nil, fmt.Errorf("%w: %d parameters, want %d", ErrLength, h.N, n)
	}
	if h.Kind.Delta() && h.Ref == (nn.Digest{}) {
		ref = make([]float32, n) // against the zero model
	}
	if h.Kind.Delta() && len(ref) != n {
		return nil, fmt.Errorf("%w: %v", ErrUnknownReference, h.Ref)
	}
	body := p[h.size():]
	out := make([]float32, n)
	var rest []byte
	switch h.Kind {
	case F32:
		rest, err = decodeF32(out, body)
	case F16:
		rest, err = decodeF16(out, body)
	case Int8, DeltaInt8:
		rest, err = decodeQuant(out, body, 127)
	case DeltaInt4:
		rest, err = decodeQuant(out, body, 7)
	case DeltaTopK:
		rest, err = decodeTopK(out, body)
	}
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d bytes", ErrTrailing, len(rest))
	}
	if h.Kind.Delta() {
		for i := range out {
			out[i] = float32(ref[i] + out[i])
		}
	}
	for i, f := range out {
		if !(math.Abs(float64(f)) <= MaxAbs) { // also refuses NaN
			return nil, fmt.Errorf("%w: parameter %d is %v", ErrValue, i, f)
		}
	}
	return out, nil
}

func need(b []byte, n int, what string) error {
	if len(b) < n {
		return fmt.Errorf("%w: %s needs %d bytes, %d left", ErrLength, what, n, len(b))
	}
	return nil
}

func decodeF32(out []float32, b []byte) ([]byte, error) {
	if err := need(b, 4*len(out), "f32 body"); err != nil {
		return nil, err
	}
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return b[4*len(out):], nil
}

func decodeF16(out []float32, b []byte) ([]byte, error) {
	if err := need(b, 2*len(out), "f16 body"); err != nil {
		return nil, err
	}
	for i := range out {
		out[i] = fromHalf(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return b[2*len(out):], nil
}

func decodeQuant(out []float32, b []byte, levels int) ([]byte, error) {
	if err := need(b, 2, "block"); err != nil {
		return nil, err
	}
	block := int(binary.BigEndian.Uint16(b))
	if block < MinBlock {
		return nil, fmt.Errorf("%w: block %d", ErrLength, block)
	}
	b = b[2:]
	nb := (len(out) + block - 1) / block
	body := len(out)
	if levels == 7 {
		body = (len(out) + 1) / 2
	}
	if err := need(b, 4*nb+body, "quantised body"); err != nil {
		return nil, err
	}
	scales := make([]float32, nb)
	for i := range scales {
		s := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if !(s >= 0 && float64(s)*float64(levels) <= MaxAbs*(1+1e-6)) { // also refuses NaN
			return nil, fmt.Errorf("%w: block %d scale %v", ErrValue, i, s)
		}
		scales[i] = s
	}
	q := b[4*nb:]
	for i := range out {
		var v int8
		if levels == 127 {
			v = int8(q[i])
		} else {
			v = int8(q[i/2]>>(4*(i%2))<<4) >> 4 // sign-extend the nibble
		}
		if v < -int8(levels) {
			return nil, fmt.Errorf("%w: quantised value %d at %d", ErrValue, v, i)
		}
		out[i] = float32(float32(v) * scales[i/block])
	}
	if levels == 7 && len(out)%2 == 1 && q[body-1]>>4 != 0 {
		return nil, fmt.Errorf("%w: padding nibble %#x", ErrValue, q[body-1]>>4)
	}
	return q[body:], nil
}

func decodeTopK(out []float32, b []byte) ([]byte, error) {
	if err := need(b, 4, "top-k count"); err != nil {
		return nil, err
	}
	k := int(binary.BigEndian.Uint32(b))
	b = b[4:]
	if k < 1 || k > len(out) {
		return nil, fmt.Errorf("%w: top-k count %d for %d parameters", ErrLength, k, len(out))
	}
	idx := make([]int, k)
	prev := -1
	for j := range idx {
		gap, m := binary.Uvarint(b)
		if m <= 0 {
			return nil, fmt.Errorf("%w: index %d of %d", ErrLength, j, k)
		}
		b = b[m:]
		if gap >= uint64(len(out)) || prev+1+int(gap) >= len(out) {
			return nil, fmt.Errorf("%w: index out of range at entry %d", ErrValue, j)
		}
		prev += 1 + int(gap)
		idx[j] = prev
	}
	if err := need(b, 2*k, "top-k values"); err != nil {
		return nil, err
	}
	for j, i := range idx {
		out[i] = fromHalf(binary.LittleEndian.Uint16(b[2*j:]))
	}
	return b[2*k:], nil
}
