package data

import (
	"fmt"
	"math"
)

// NormalizeFrom returns the per-channel (perFeature false) or per-feature
// mean and standard deviation of d's samples, for a Manifest's Normalize:
// computed on the train set, applied to both. A constant channel or
// feature gets std 1 (it is only shifted).
func NormalizeFrom(d *Dataset, perFeature bool) (*Normalize, error) {
	f := d.Features()
	if d.Len() == 0 || f == 0 || len(d.X) != d.Len()*f {
		return nil, fmt.Errorf("%w: %d values for %d samples of %v", ErrInvalid, len(d.X), d.Len(), d.Shape)
	}
	k := d.Shape[2]
	if perFeature {
		k = f
	}
	sum, sq := make([]float64, k), make([]float64, k)
	for i, v := range d.X {
		j := i % f % k
		sum[j] += float64(v)
		sq[j] += float64(v) * float64(v)
	}
	n := float64(len(d.X) / k)
	out := &Normalize{Mean: make([]float64, k), Std: make([]float64, k)}
	for j := range k {
		mean := sum[j] / n
		std := math.Sqrt(max(sq[j]/n-mean*mean, 0))
		if std < 1e-12 {
			std = 1
		}
		out.Mean[j], out.Std[j] = mean, std
	}
	return out, nil
}
