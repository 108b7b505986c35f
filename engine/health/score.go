package health

import "fmt"

// MinClassSamples is the fewest samples of a class in a peer's data for
// the class to count in Balanced: a class of one or two samples would
// swing the score by a whole class's weight on one prediction.
const MinClassSamples = 5

// Balanced is the score Observe expects: a model's balanced accuracy on
// a peer's data, the mean over the classes with at least
// MinClassSamples samples of the share of them classified right
// (correct[c] of total[c]); with no such class, the plain accuracy over
// all. Why not plain accuracy: a peer's shard is skewed (non-IID), and a
// model that answers its dominant class for everything scores that
// class's share; balanced, such a model scores 1/k on k classes. (In
// the lab, victim placement, seed 3, sign-flipped models still scored
// 0.20-0.61 balanced against the victim's 0.70-0.85: Config.LossCap is
// what caught them.)
func Balanced(correct, total []int) (float64, error) {
	if len(correct) != len(total) {
		return 0, fmt.Errorf("%w: %d correct counts for %d classes", ErrInput, len(correct), len(total))
	}
	var sum float64
	var classes, right, all int
	for c, n := range total {
		if correct[c] < 0 || correct[c] > n {
			return 0, fmt.Errorf("%w: class %d: %d correct of %d", ErrInput, c, correct[c], n)
		}
		right, all = right+correct[c], all+n
		if n >= MinClassSamples {
			sum += float64(correct[c]) / float64(n)
			classes++
		}
	}
	switch {
	case classes > 0:
		return sum / float64(classes), nil
	case all > 0:
		return float64(right) / float64(all), nil
	}
	return 0, fmt.Errorf("%w: no samples", ErrInput)
}
