package node

import "time"

// The evaluations of a learning peer's model on a test set: the Node
// decides when one is due (every EvalEvery of the time it is given, one
// at a time, once the core has a model) and whether the task's target
// accuracy is reached; the shell runs them on a goroutine of its own
// (EvalRequest out, Evaluated back).

// EvalRequest asks the shell to evaluate Params, the model after Round
// rounds (never modified: safe to read on another goroutine), and to
// bring the result back with Evaluated.
type EvalRequest struct {
	Params []float32
	Round  int
}

// Evaluated is the result of the EvalRequest for Round.
type Evaluated struct {
	Round          int
	Accuracy, Loss float64
	Err            error
}

func (Evaluated) event() {}

// EvalStatus is what the evaluations found: the last one's accuracy and
// loss at Round rounds, how many ran, and whether one reached the
// task's target accuracy (once reached, it stays: the task counts as
// done here, the peer goes on until max_rounds or stopped).
type EvalStatus struct {
	Accuracy, Loss float64
	Round, Evals   int
	Target         float64
	TargetReached  bool
}

type evaluation struct {
	every time.Duration // 0: the shell evaluates nothing
	busy  bool
	last  time.Time
	st    EvalStatus
}

// maybeEval hands out an evaluation when one is due.
func (n *Node) maybeEval() {
	e, m := &n.eval, n.method
	if e.every <= 0 || m == nil || e.busy || (!e.last.IsZero() && n.now.Sub(e.last) < e.every) {
		return
	}
	params := m.Model()
	if params == nil {
		return
	}
	e.busy, e.last = true, n.now
	n.rd.Evaluate = &EvalRequest{Params: params, Round: m.RoundsDone()}
}

// evaluated takes an evaluation's result.
func (n *Node) evaluated(r Evaluated) {
	e := &n.eval
	e.busy = false
	if r.Err != nil {
		n.logf("learn: evaluation: %v", r.Err)
		return
	}
	e.st.Accuracy, e.st.Loss, e.st.Round = r.Accuracy, r.Loss, r.Round
	e.st.Evals++
	if !e.st.TargetReached && r.Accuracy >= e.st.Target {
		e.st.TargetReached = true
		n.logf("learn: target accuracy %.3f reached: %.4f at round %d", e.st.Target, r.Accuracy, r.Round)
	}
}

// Evaluation is what the evaluations found.
func (n *Node) Evaluation() EvalStatus { return n.eval.st }
