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
// done here, the peer goes on until max_rounds or stopped). Final says
// the last one evaluated the final model: the method was done when it
// began. Round alone cannot say so: a D-PSGD peer's trainings reach
// max_rounds before its last mix, and an evaluation in between is of
// its own last training.
type EvalStatus struct {
	Accuracy, Loss float64
	Round, Evals   int
	Target         float64
	TargetReached  bool
	Final          bool
}

type evaluation struct {
	every  time.Duration // 0: the shell evaluates nothing
	busy   bool
	last   time.Time
	final  bool // the one in flight is of the final model
	failed bool // an evaluation of the final model failed: retry by the clock
	// judged is the model the last final evaluation read (or the one in
	// flight): a done method's model can still change (a Plexus peer is
	// done on a digest's word, before the last round's global model
	// reaches it), and a new one is evaluated at once too.
	judged []float32
	st     EvalStatus
}

// maybeEval hands out an evaluation when one is due, and at once when
// the method is done and its model (final) has not been evaluated yet.
func (n *Node) maybeEval() {
	e, m := &n.eval, n.method
	if e.every <= 0 || m == nil || e.busy {
		return
	}
	params := m.Model()
	if params == nil {
		return
	}
	final := m.Done()
	if !final || e.failed || sameModel(params, e.judged) { // due by the clock alone
		if !e.last.IsZero() && n.now.Sub(e.last) < e.every {
			return
		}
	}
	if final {
		e.judged = params
	}
	e.busy, e.last, e.final = true, n.now, final
	n.rd.Evaluate = &EvalRequest{Params: params, Round: m.RoundsDone()}
}

// evaluated takes an evaluation's result.
func (n *Node) evaluated(r Evaluated) {
	e := &n.eval
	e.busy = false
	if r.Err != nil {
		e.failed = e.failed || e.final
		n.logf("learn: evaluation: %v", r.Err)
		return
	}
	e.st.Accuracy, e.st.Loss, e.st.Round, e.st.Final = r.Accuracy, r.Loss, r.Round, e.final
	e.st.Evals++
	if !e.st.TargetReached && r.Accuracy >= e.st.Target {
		e.st.TargetReached = true
		n.logf("learn: target accuracy %.3f reached: %.4f at round %d", e.st.Target, r.Accuracy, r.Round)
	}
}

// Evaluation is what the evaluations found.
func (n *Node) Evaluation() EvalStatus { return n.eval.st }

// sameModel reports whether a and b are the same slice (a core hands
// out a new slice for a new model and never modifies one it handed out).
func sameModel(a, b []float32) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}
