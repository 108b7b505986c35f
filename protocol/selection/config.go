package selection

import (
	"fmt"
	"math"
	"strconv"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Kind names a policy.
type Kind uint8

const (
	// KindLocal: no neighbours, local training only (baseline).
	KindLocal Kind = iota
	// KindRandom: m_selected uniformly random peers per round (Alg. 1).
	KindRandom
	// KindGreedy: the m_selected best of m_sample evaluated peers (Alg. 2).
	KindGreedy
	// KindEpsilonGreedy: Greedy with Bin(m, lambda^t eps) random swaps
	// (Alg. 3).
	KindEpsilonGreedy
	// KindPENS: Greedy sampling repeated n_samplings times per round to
	// build a history, then Random among the over-represented peers
	// (Alg. 4).
	KindPENS
	// KindRandomWeighted: Random, averaged with accuracy weights (Alg. 5).
	KindRandomWeighted
	// KindOracle: Random within the true cluster (baseline).
	KindOracle
)

var kindNames = [...]string{"local", "random", "greedy", "epsilon-greedy", "pens", "random-weighted", "oracle"}

// String names the kind as ParseKind reads it.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKind reads a kind's name.
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown kind %q (want one of %v)", ErrConfig, s, kindNames)
}

// Metric is what ranks evaluated candidates.
type Metric uint8

const (
	// MetricLoss: lower loss of our model on the candidate's data is
	// better (published PENS paper).
	MetricLoss Metric = iota
	// MetricAccuracy: higher accuracy is better (the thesis' Alg. 2).
	MetricAccuracy
)

// Config configures one peer's policy. Which fields matter depends on
// Kind; DefaultConfig fills them with the thesis' values for 200 clients.
type Config struct {
	Kind Kind
	// Self is this peer: never a candidate, excluded from Oracle's pool.
	// Must be set.
	Self ident.Peer
	// Selected is m_selected: neighbours per round (PENS: in step 1).
	Selected int
	// Sampled is m_sample: candidates per sample (evaluation-based kinds).
	Sampled int
	// Metric ranks evaluated candidates (Greedy, EpsilonGreedy, PENS).
	Metric Metric
	// Epsilon and Lambda: EpsilonGreedy swaps Bin(Selected, Lambda^t *
	// Epsilon) of the greedy picks at round t. Epsilon in [0, 1], Lambda
	// in (0, 1].
	Epsilon, Lambda float64
	// Samplings is n_samplings: PENS's samples per step-1 round.
	Samplings int
	// Step1Rounds is the number of PENS step-1 rounds (the thesis does
	// not give it; 10 by default).
	Step1Rounds int
	// Step2Selected is PENS's m_selected in step 2 (Random among the kept
	// neighbours).
	Step2Selected int
	// Clusters is the true cluster of every peer (Oracle; also what
	// PrecisionRecall scores against). Self must be in it.
	Clusters map[ident.Peer]int
}

// DefaultConfig returns the thesis' settings for kind with 200 clients
// (Tables 3.2, 3.3 and Sec. 5); the caller sets Self (and Clusters for
// Oracle).
func DefaultConfig(kind Kind) Config {
	c := Config{Kind: kind, Metric: MetricLoss}
	switch kind {
	case KindRandom, KindRandomWeighted, KindOracle:
		c.Selected = 20 // Table 3.2: m_selected 20
	case KindGreedy:
		c.Selected, c.Sampled = 4, 20 // Sec. 5: 4 neighbours in the Greedy-based methods
	case KindEpsilonGreedy:
		c.Selected, c.Sampled = 4, 20 // Table 3.2: 4 of 20
		c.Epsilon, c.Lambda = 0.5, 1  // Table 4.2's best (0.5, 1)
	case KindPENS:
		c.Selected, c.Sampled, c.Samplings = 4, 20, 10 // Table 3.3, 200 clients
		c.Step1Rounds = 10                             // not given in the thesis
		c.Step2Selected = 20                           // Sec. 5: 20 in step 2
	}
	return c
}

// Validate checks the fields Kind uses.
func (c Config) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %v: "+format, append([]any{ErrConfig, c.Kind}, a...)...)
	}
	if c.Self == (ident.Peer{}) {
		return bad("Self not set")
	}
	if c.Metric > MetricAccuracy {
		return bad("Metric %d", c.Metric)
	}
	switch c.Kind {
	case KindLocal:
		return nil
	case KindRandom, KindRandomWeighted:
		if c.Selected < 1 {
			return bad("Selected %d: want >= 1", c.Selected)
		}
	case KindOracle:
		if c.Selected < 1 {
			return bad("Selected %d: want >= 1", c.Selected)
		}
		if _, ok := c.Clusters[c.Self]; !ok {
			return bad("Self %v not in Clusters", c.Self)
		}
	case KindGreedy, KindEpsilonGreedy, KindPENS:
		if c.Selected < 1 || c.Sampled < c.Selected {
			return bad("Selected %d of Sampled %d: want 1 <= Selected <= Sampled", c.Selected, c.Sampled)
		}
		if c.Kind == KindEpsilonGreedy && (!(c.Epsilon >= 0 && c.Epsilon <= 1) || !(c.Lambda > 0 && c.Lambda <= 1)) {
			return bad("Epsilon %v, Lambda %v: want [0,1] and (0,1]", c.Epsilon, c.Lambda)
		}
		if c.Kind == KindPENS && (c.Samplings < 1 || c.Step1Rounds < 1 || c.Step2Selected < 1) {
			return bad("Samplings %d, Step1Rounds %d, Step2Selected %d: want >= 1", c.Samplings, c.Step1Rounds, c.Step2Selected)
		}
	default:
		return bad("unknown kind")
	}
	return nil
}

// finiteNonNeg reports x >= 0 and finite.
func finiteNonNeg(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }
