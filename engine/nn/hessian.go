package nn

import (
	"fmt"

	"github.com/peerlearn/peerlearn/internal/f32"
)

// HessianDiag estimates the diagonal of the Hessian of the loss on
// (x, y) by the empirical Fisher / Gauss-Newton approximation DecHW uses:
// dst[j] = (1/n) Σ_i g_ij², where g_i is the gradient of sample i's own
// cross-entropy (not divided by the batch size). dst has the parameter
// layout. It runs in batches of batch samples (0 means DefaultEvalBatch),
// calling yield (if not nil) between them, and clobbers Grads.
//
// Dense layers get Σ_i g_i² from one GEMM per batch ((dy∘dy)ᵀ·(x∘x));
// Conv2D layers need one small GEMM per sample.
func (m *Model) HessianDiag(x []float32, y []int32, batch int, dst []float32, yield func()) error {
	if len(dst) != len(m.params) {
		return fmt.Errorf("%w: destination has %d values, model %d parameters", ErrShape, len(dst), len(m.params))
	}
	if batch < 0 {
		return fmt.Errorf("%w: batch size %d", ErrConfig, batch)
	}
	if batch == 0 {
		batch = DefaultEvalBatch
	}
	n := len(y)
	if err := m.checkBatch(x, n, y); err != nil {
		return err
	}
	clear(m.grads)
	for lo := 0; lo < n; lo += batch {
		if lo > 0 && yield != nil {
			yield()
		}
		hi := min(lo+batch, n)
		logits := m.forward(x[lo*m.inSize:hi*m.inSize], hi-lo)
		if _, err := softmaxCE(logits, y[lo:hi], m.classes, m.dlogits, 1); err != nil {
			return fmt.Errorf("samples %d..%d: %w", lo, hi-1, err)
		}
		m.backward(hi-lo, true)
	}
	if i := f32.FirstNonFinite(m.grads); i >= 0 {
		return fmt.Errorf("%w: Hessian diagonal entry %d is %v", ErrNonFinite, i, m.grads[i])
	}
	inv := 1 / float32(n)
	for j, v := range m.grads {
		dst[j] = v * inv
	}
	return nil
}
