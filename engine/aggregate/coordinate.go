package aggregate

import (
	"fmt"
	"math"
	"slices"
)

// TrimmedMean is the coordinate-wise trimmed mean over the closed
// neighbourhood (self included): for every parameter the b smallest and b
// largest of the m values are dropped and the rest averaged, b =
// floor(Trim*m) but at least 1 when m >= 3 and at most (m-1)/2. While at
// most b contributors lie, every kept value at every coordinate lies
// between two honest values, whatever the liars send. It uses no claims
// (DataSize, confidences, Hessians are ignored), so nothing a neighbour
// says about itself can raise its weight.
type TrimmedMean struct {
	// Trim in [0, 0.5) is the share of contributors dropped at each end.
	Trim float64
}

// DefaultTrim drops a fifth at each end: one of five contributors (self
// and four neighbours), two of ten.
const DefaultTrim = 0.2

// Median is the coordinate-wise median over the closed neighbourhood
// (self included); the mean of the two middle values for an even count.
// It stays between honest values while liars are fewer than half of the
// contributors. Like TrimmedMean it ignores every claim.
type Median struct{}

// Aggregate implements Aggregator.
func (t TrimmedMean) Aggregate(self Contribution, others []Contribution, out []float32) (Report, error) {
	if !(t.Trim >= 0 && t.Trim < 0.5) {
		return Report{}, fmt.Errorf("%w: trim %v not in [0, 0.5)", ErrConfig, t.Trim)
	}
	return coordinateMean(self, others, out, func(m int) int {
		b := int(math.Floor(t.Trim*float64(m) + 1e-9))
		if m >= 3 {
			b = max(b, 1)
		}
		return min(b, (m-1)/2)
	})
}

// Aggregate implements Aggregator.
func (Median) Aggregate(self Contribution, others []Contribution, out []float32) (Report, error) {
	return coordinateMean(self, others, out, func(m int) int { return (m - 1) / 2 })
}

// coordinateMean screens, then writes at every coordinate the mean of the
// values left after dropping trim(m) from each end, m the number of
// contributors. A neighbour's Outlier severity is the share of
// coordinates where its value fell strictly outside the kept range,
// beyond the share 2b/m every contributor is dropped at on average.
func coordinateMean(self Contribution, others []Contribution, out []float32, trim func(m int) int) (Report, error) {
	var rep Report
	var ib [stackN]int
	idx, err := screen(&self, others, out, nil, ib[:0], &rep)
	if err != nil {
		return Report{}, err
	}
	m := len(idx) + 1
	b := trim(m)
	var vb [stackN + 1]float32
	col := vb[:0]
	dropped := make([]int, len(idx))
	keep := float64(m - 2*b)
	for i := range out {
		col = append(col[:0], self.Params[i])
		for _, j := range idx {
			col = append(col, others[j].Params[i])
		}
		slices.Sort(col)
		lo, hi := col[b], col[m-1-b]
		var sum float64
		for _, v := range col[b : m-b] {
			sum += float64(v)
		}
		out[i] = float32(sum / keep)
		if b == 0 {
			continue
		}
		for k, j := range idx {
			if v := others[j].Params[i]; v < lo || v > hi {
				dropped[k]++
			}
		}
	}
	if b > 0 {
		expect := float64(2*b) / float64(m)
		for k, j := range idx {
			share := float64(dropped[k]) / float64(len(out))
			if s := (share - expect) / (1 - expect); s > 0 {
				rep.Outliers = append(rep.Outliers, Outlier{Index: j, From: others[j].From, Severity: s})
			}
		}
	}
	rep.Used = m
	return rep, nil
}
