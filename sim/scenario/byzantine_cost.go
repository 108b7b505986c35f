package scenario

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/peerlearn/peerlearn/sim/dflsim"
)

// The cost without attack with its noise (issue #26: is the default's
// cost on Fashion-MNIST real?). A rule's cost in a seed is plain fedlay's
// no-attack accuracy minus the rule's; every training order reseeds
// both runs alike (orderEdit), so the order's difference is one paired
// sample and their standard error says how far the cell's mean can be
// trusted: on Fashion-MNIST one order's difference spreads by about 2
// points, so a three-order cell is good to about a point
// (docs/RESULTS.md, issue #26).

// pairedCost returns the mean over orders of a[i] - b[i], in points, and
// its standard error (0 with one order), or ok false when the two ran at
// different numbers of orders or none.
func pairedCost(a, b []float64) (mean, se float64, ok bool) {
	n := len(a)
	if n == 0 || len(b) != n {
		return 0, 0, false
	}
	d := make([]float64, n)
	for i := range a {
		d[i] = 100 * (a[i] - b[i])
	}
	mean, sd := meanStd(d) // vsteady.go
	return mean, sd / math.Sqrt(float64(n)), true
}

// reportCosts prints, with more than one training order, each rule's
// cost without attack per seed with its standard error over the orders,
// and over the seeds the mean of the seeds' costs.
func (s *byzStudy) reportCosts(o Options, out io.Writer) {
	if s.p.orders < 2 {
		return
	}
	for _, rule := range s.p.rules {
		if rule == "fedlay" {
			continue
		}
		var cells []string
		var sum float64
		for _, seed := range s.seedsOf(o) {
			m, se, ok := pairedCost(s.orderAcc[byzKey{0, seed, "fedlay", dflsim.AttackNone}], s.orderAcc[byzKey{0, seed, rule, dflsim.AttackNone}])
			if !ok {
				break
			}
			cells, sum = append(cells, fmt.Sprintf("%.2f ± %.2f", m, se)), sum+m
		}
		if len(cells) != len(s.seedsOf(o)) {
			continue // not run without attack
		}
		fmt.Fprintf(out, "  cost of %s without attack per seed (± standard error over %d orders, paired by order): %s; mean %.2f\n",
			rule, s.p.orders, strings.Join(cells, " / "), sum/float64(len(cells)))
	}
}
