package data

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// The pixel code: a lossless code for one-byte-a-pixel greyscale images
// (IDX's pixels) that a browser tab downloads instead of gzipped IDX
// (light data, light.go). gzip finds repeated strings; a handwritten
// digit repeats little but its neighbourhoods: a pixel is almost surely 0
// where its left and upper neighbours are, and near theirs where they are
// ink. The code predicts each pixel's bits from its causal neighbours (an
// adaptive binary range coder, LZMA's, with contexts made of the
// quantised neighbours) and writes what the prediction did not know: for
// MNIST about 75% of the gzipped bytes (an eighth of the train set: 0.84
// MB against 1.12 MB).
//
// Layout: "PLPX", version (1 byte), images, rows, columns (uint32 each,
// big-endian), the CRC-32 (IEEE) of the pixels, then the range coder's
// bytes. A pixel is coded as "zero or not" in a context of its four
// causal neighbours (W, N, NW, NE, each in 5 levels) and whether the
// pixels two to the left and two up are ink, then, if not zero, its 8
// bits on a binary tree in a context of JPEG-LS's median prediction from
// W, N and NW, the W-N gradient, NE and the far pixels. Every image starts with fresh neighbours (0 outside it) but
// the probabilities carry on: what the first images teach serves the
// rest.

const (
	pxMagic   = "PLPX"
	pxVersion = 1
	pxHeader  = 4 + 1 + 4*4

	pxProbBits = 12
	pxProbInit = 1 << (pxProbBits - 1)
	pxMove     = 5
	pxTop      = 1 << 24
)

// pxModel holds the adaptive probabilities of a zero bit.
type pxModel struct {
	zero [5 * 5 * 5 * 5 * 4]uint16
	val  [16 * 8 * 3 * 4][256]uint16
}

func newPxModel() *pxModel {
	m := &pxModel{}
	for i := range m.zero {
		m.zero[i] = pxProbInit
	}
	for i := range m.val {
		for j := range m.val[i] {
			m.val[i][j] = pxProbInit
		}
	}
	return m
}

func pxLevel(v byte) int {
	switch {
	case v == 0:
		return 0
	case v < 64:
		return 1
	case v < 192:
		return 2
	case v < 250:
		return 3
	}
	return 4
}

// pxContexts returns the contexts of pixel (r, c) of img (cols wide):
// for the zero bit and for the value bits.
func pxContexts(img []byte, cols, r, c int) (zc, vc int) {
	at := func(rr, cc int) byte {
		if rr < 0 || cc < 0 || cc >= cols {
			return 0
		}
		return img[rr*cols+cc]
	}
	w, n, nw, ne := at(r, c-1), at(r-1, c), at(r-1, c-1), at(r-1, c+1)
	far := 0
	if at(r, c-2) != 0 {
		far |= 1
	}
	if at(r-2, c) != 0 {
		far |= 2
	}
	zc = (((pxLevel(w)*5+pxLevel(n))*5+pxLevel(nw))*5+pxLevel(ne))*4 + far
	ne3 := 0
	if ne != 0 {
		ne3 = 1
		if ne >= 250 {
			ne3 = 2
		}
	}
	// JPEG-LS's median edge detector predicts the pixel from W, N and NW;
	// the value's context is that prediction (16 levels), how much W and
	// N differ (8), NE (3) and the far pixels (4).
	pw, pn, pnw := int(w), int(n), int(nw)
	pred := pw + pn - pnw
	if hi, lo := max(pw, pn), min(pw, pn); pnw >= hi {
		pred = lo
	} else if pnw <= lo {
		pred = hi
	}
	grad := pw - pn
	if grad < 0 {
		grad = -grad
	}
	vc = (((pred>>4)*8+min(grad>>5, 7))*3+ne3)*4 + far
	return zc, vc
}

// EncodePixels codes n images of rows x cols pixels (px, one byte each,
// row-major, image after image).
func EncodePixels(px []byte, n, rows, cols int) ([]byte, error) {
	if n < 0 || rows < 1 || cols < 1 || int64(n)*int64(rows)*int64(cols) != int64(len(px)) || int64(len(px)) > MaxIDXBytes {
		return nil, fmt.Errorf("%w: %d pixels for %d images of %dx%d", ErrInvalid, len(px), n, rows, cols)
	}
	out := make([]byte, pxHeader, pxHeader+len(px)/4)
	copy(out, pxMagic)
	out[4] = pxVersion
	binary.BigEndian.PutUint32(out[5:], uint32(n))
	binary.BigEndian.PutUint32(out[9:], uint32(rows))
	binary.BigEndian.PutUint32(out[13:], uint32(cols))
	binary.BigEndian.PutUint32(out[17:], crc32.ChecksumIEEE(px))
	e := pxEncoder{rng: 0xFFFFFFFF, cacheSize: 1, out: out}
	m := newPxModel()
	size := rows * cols
	for i := range n {
		img := px[i*size : (i+1)*size]
		for r := range rows {
			for c := range cols {
				zc, vc := pxContexts(img, cols, r, c)
				v := img[r*cols+c]
				if v == 0 {
					e.bit(&m.zero[zc], 0)
					continue
				}
				e.bit(&m.zero[zc], 1)
				node := 1
				for b := 7; b >= 0; b-- {
					bit := int(v>>b) & 1
					e.bit(&m.val[vc][node], bit)
					node = node<<1 | bit
				}
			}
		}
	}
	return e.flush(), nil
}

// PixelsHeader returns the images, rows and columns a pixel code holds,
// or an error if b is not one (within MaxIDXBytes pixels).
func PixelsHeader(b []byte) (n, rows, cols int, err error) {
	if len(b) < pxHeader || string(b[:4]) != pxMagic {
		return 0, 0, 0, fmt.Errorf("%w: not a pixel code", ErrInvalid)
	}
	if b[4] != pxVersion {
		return 0, 0, 0, fmt.Errorf("%w: pixel code version %d, want %d", ErrInvalid, b[4], pxVersion)
	}
	n, rows, cols = int(binary.BigEndian.Uint32(b[5:])), int(binary.BigEndian.Uint32(b[9:])), int(binary.BigEndian.Uint32(b[13:]))
	if rows < 1 || cols < 1 || int64(n)*int64(rows)*int64(cols) > MaxIDXBytes {
		return 0, 0, 0, fmt.Errorf("%w: pixel code of %d images of %dx%d", ErrInvalid, n, rows, cols)
	}
	return n, rows, cols, nil
}

// DecodePixels decodes a pixel code: the pixels and their shape. yield,
// if not nil, is called every 64 images, so that a browser tab can let
// its event loop run. Corrupt or truncated input is an error (the
// pixels' CRC), never a panic.
func DecodePixels(b []byte, yield func()) (px []byte, n, rows, cols int, err error) {
	if n, rows, cols, err = PixelsHeader(b); err != nil {
		return nil, 0, 0, 0, err
	}
	want := binary.BigEndian.Uint32(b[17:])
	d := pxDecoder{rng: 0xFFFFFFFF, in: b[pxHeader:]}
	for range 5 {
		d.code = d.code<<8 | uint32(d.next())
	}
	m := newPxModel()
	size := rows * cols
	px = make([]byte, n*size)
	for i := range n {
		if yield != nil && i > 0 && i%64 == 0 {
			yield()
		}
		img := px[i*size : (i+1)*size]
		for r := range rows {
			for c := range cols {
				zc, vc := pxContexts(img, cols, r, c)
				if d.bit(&m.zero[zc]) == 0 {
					continue
				}
				node := 1
				for range 8 {
					node = node<<1 | d.bit(&m.val[vc][node])
				}
				img[r*cols+c] = byte(node)
			}
		}
	}
	if d.pos > len(d.in) || crc32.ChecksumIEEE(px) != want {
		return nil, 0, 0, 0, fmt.Errorf("%w: pixel code corrupt or truncated (%d of %d bytes read, CRC mismatch)", ErrInvalid, d.pos, len(d.in))
	}
	return px, n, rows, cols, nil
}

// pxEncoder is LZMA's range encoder.
type pxEncoder struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int64
	out       []byte
}

func (e *pxEncoder) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low>>32 != 0 {
		carry := byte(e.low >> 32)
		temp := e.cache
		for {
			e.out = append(e.out, temp+carry)
			temp = 0xFF
			e.cacheSize--
			if e.cacheSize == 0 {
				break
			}
		}
		e.cache = byte(uint32(e.low) >> 24)
	}
	e.cacheSize++
	e.low = uint64(uint32(e.low) << 8)
}

func (e *pxEncoder) bit(p *uint16, b int) {
	bound := (e.rng >> pxProbBits) * uint32(*p)
	if b == 0 {
		e.rng = bound
		*p += ((1 << pxProbBits) - *p) >> pxMove
	} else {
		e.low += uint64(bound)
		e.rng -= bound
		*p -= *p >> pxMove
	}
	for e.rng < pxTop {
		e.rng <<= 8
		e.shiftLow()
	}
}

func (e *pxEncoder) flush() []byte {
	for range 5 {
		e.shiftLow()
	}
	return e.out
}

// pxDecoder is LZMA's range decoder. Past the end of its input it reads
// zeros (and counts them in pos), so truncated input decodes to pixels
// the CRC refuses.
type pxDecoder struct {
	rng, code uint32
	in        []byte
	pos       int
}

func (d *pxDecoder) next() byte {
	d.pos++
	if d.pos <= len(d.in) {
		return d.in[d.pos-1]
	}
	return 0
}

func (d *pxDecoder) bit(p *uint16) int {
	bound := (d.rng >> pxProbBits) * uint32(*p)
	b := 0
	if d.code < bound {
		d.rng = bound
		*p += ((1 << pxProbBits) - *p) >> pxMove
	} else {
		d.code -= bound
		d.rng -= bound
		*p -= *p >> pxMove
		b = 1
	}
	for d.rng < pxTop {
		d.rng <<= 8
		d.code = d.code<<8 | uint32(d.next())
	}
	return b
}
