//go:build !amd64 && !js

package f32

import (
	"errors"
	"runtime"
)

// hasAccel reports whether this build and CPU have faster kernels than the
// pure-Go ones: none outside amd64 and the browser (wasip1 has no SIMD
// module host).
const hasAccel = false

// accelName is never shown: Accelerated is always false here.
const accelName = "none"

// AccelError says why there are no accelerated kernels.
func AccelError() error {
	return errors.New("f32: no accelerated kernels for " + runtime.GOOS + "/" + runtime.GOARCH)
}

// The accelerated kernels are never called where hasAccel is false.

func gemmAccel(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	panic("f32: no accelerated kernels in this build")
}

func useAccel(m, n, k int) bool { return false }

func dotAccel(x, y []float32) float32 { return dotRef(x, y) }

func axpyAccel(alpha float32, x, y []float32) { axpyRef(alpha, x, y) }

func scaleAccel(alpha float32, x []float32) { scaleRef(alpha, x) }

// No vector kernels beyond Dot, Axpy and Scale here: the pure-Go loops
// do every element.

func reluAccel(x, y []float32) int          { return 0 }
func reluGradAccel(y, dy, dx []float32) int { return 0 }
func sumAccel(x []float32) (float32, int)   { return 0, 0 }
func nonFiniteAccel(x []float32) int        { return 0 }
func stridedAccel(add bool, dst, src []float32, n, dn, sn, rows, dr, sr, width int) bool {
	return false
}

func sgdAccel(params, grads, vel []float32, lr, mu, wd float32, nesterov bool) int { return 0 }
