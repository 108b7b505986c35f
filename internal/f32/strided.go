package f32

import "fmt"

// AddStrided adds n blocks of rows×width floats of src into dst: for
// i < n, r < rows, j < width,
//
//	dst[i*dn + r*dr + j] += src[i*sn + r*sr + j]
//
// (a convolution's col2im). Every element gets one float32 add, so every
// kernel gives the same bits. The rows of dst must not overlap each other
// or src. It panics when a block falls outside its slice.
func AddStrided(dst, src []float32, n, dn, sn, rows, dr, sr, width int) {
	stridedOp(true, dst, src, n, dn, sn, rows, dr, sr, width)
}

// CopyStrided is AddStrided with dst = src instead of dst += src (a
// convolution's im2col).
func CopyStrided(dst, src []float32, n, dn, sn, rows, dr, sr, width int) {
	stridedOp(false, dst, src, n, dn, sn, rows, dr, sr, width)
}

func stridedOp(add bool, dst, src []float32, n, dn, sn, rows, dr, sr, width int) {
	if n <= 0 || rows <= 0 || width <= 0 {
		return
	}
	checkStrided("dst", len(dst), n, dn, rows, dr, width)
	checkStrided("src", len(src), n, sn, rows, sr, width)
	if accelerated.Load() && stridedAccel(add, dst, src, n, dn, sn, rows, dr, sr, width) {
		accelCalls.Add(1)
		return
	}
	for i := 0; i < n; i++ {
		for r := 0; r < rows; r++ {
			d := dst[i*dn+r*dr:][:width]
			s := src[i*sn+r*sr:][:width]
			if !add {
				copy(d, s)
				continue
			}
			for j, v := range s {
				d[j] += v
			}
		}
	}
}

// checkStrided panics unless every block row lies inside a slice of
// length size (strides must not be negative).
func checkStrided(name string, size, n, bs, rows, rs, width int) {
	if bs < 0 || rs < 0 {
		panic(fmt.Sprintf("f32: strided %s: negative stride", name))
	}
	if last := (n-1)*bs + (rows-1)*rs + width; last > size {
		panic(fmt.Sprintf("f32: strided %s: %d blocks of %d rows of %d (strides %d, %d) need %d elements, have %d", name, n, rows, width, bs, rs, last, size))
	}
}
