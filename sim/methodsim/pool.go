package methodsim

import "github.com/peerlearn/peerlearn/sim/dflsim"

// The drivers share dflsim's worker pool: local training (learn.Work) and
// model-on-dataset evaluations on per-worker evaluators.
type (
	Pool   = dflsim.Pool
	Worker = dflsim.Worker
	Future = dflsim.Future
)

// NewPool starts n workers (n < 1: one per core).
func NewPool(n int) *Pool { return dflsim.NewPool(n) }

// WaitAll waits for every future.
func WaitAll(fs []*Future) { dflsim.WaitAll(fs) }
