package nn

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/internal/detmath"
)

// softmaxCE computes the softmax cross-entropy of each row of logits
// ([n][classes]) against its label and writes dL/dlogits scaled by scale
// into grad: (softmax(z) - onehot(y)) * scale. It returns the sum over
// rows of the per-row loss.
//
// Stable for any finite logits: exponents are taken of z - max(z) ≤ 0,
// so the sum is in [1, classes] and its log is well defined. exp and log
// are evaluated in float64 by the ports in internal/detmath, for results
// that are the same bits on every platform.
func softmaxCE(logits []float32, y []int32, classes int, grad []float32, scale float32) (float64, error) {
	var total float64
	for i, label := range y {
		z := logits[i*classes : (i+1)*classes]
		g := grad[i*classes : (i+1)*classes]
		m := z[0]
		for _, v := range z[1:] {
			m = max(m, v)
		}
		var s float64
		for _, v := range z {
			s += detmath.Exp(float64(v - m))
		}
		loss := detmath.Log(s) - float64(z[label]-m)
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return 0, fmt.Errorf("%w: loss of sample %d is %v (logits %v)", ErrNonFinite, i, loss, z)
		}
		total += loss
		for j, v := range z {
			p := float32(detmath.Exp(float64(v-m)) / s)
			if j == int(label) {
				p--
			}
			g[j] = p * scale
		}
	}
	return total, nil
}
