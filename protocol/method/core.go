package method

import "github.com/peerlearn/peerlearn/types/ident"

// Core is one peer's side of a method. It is not safe for concurrent use.
type Core interface {
	// SetPeers replaces the peers the core may exchange with (not self,
	// no repeats).
	SetPeers(ids []ident.Peer) error
	// Tick advances time by one tick.
	Tick()
	// Step hands the core a message from peer from (authenticated by the
	// transport): header is the method's encoded header, params the model
	// payload (nil for a control message). A message the core refuses is
	// an error, counted in Status.Refused; it never panics.
	Step(from ident.Peer, header []byte, params []float32) error
	// Evaluated reports an Eval: the loss and accuracy of its Params on
	// samples of the local training data (samples 0: it failed).
	Evaluated(token uint64, loss, accuracy float64, samples int) error
	// Trained reports the outstanding Train: the trained parameters (nil
	// when training failed: the core keeps what it trained from) and the
	// samples it used.
	Trained(params []float32, samples int) error
	// HasReady reports whether Ready has anything to hand out.
	HasReady() bool
	// Ready hands out, and forgets, what the runtime must do.
	Ready() Ready
	// Model is the peer's current model, to evaluate (shared: do not
	// modify); nil before the first.
	Model() []float32
	// Status is what the core tells a volunteer and the tests.
	Status() Status
}

// Send is a message to send: Header as a control message when Params is
// nil, else Header as a transfer's metadata and Params as its payload.
type Send struct {
	To     ident.Peer
	Header []byte
	// Params is shared, never modified: the runtime may send it later.
	Params []float32
	// Rest, if not nil, follows Params in the payload as float32 as it
	// is, never through a lossy codec (FedLay's Hessian diagonal). The
	// receiving runtime hands the core Params and Rest as one vector:
	// the core's header says where Params end. Shared, never modified.
	Rest []float32
}

// Bytes is what s costs on the wire: header plus 4 bytes a value.
func (s Send) Bytes() int64 {
	return int64(len(s.Header)) + 4*int64(len(s.Params)+len(s.Rest))
}

// Train asks the runtime to train Params (a slice the runtime owns: it
// may train it in place) on the local shard, once, and to call Trained.
// A core has at most one Train outstanding.
//
// A core that prepares its trainings itself (FedLay's MEP: aggregate the
// neighbours' models under a robust rule, then train, as one
// learn.Work) hands out Job instead, with Params nil: the runtime calls
// Job.Run, on any goroutine, and then Trained(nil, Job.Samples()) on
// the core's; the Job holds the result.
type Train struct {
	Params []float32
	Job    Job
}

// Job is a training a core prepared itself (learn.Work is one): Run does
// the computation and touches nothing the core's other methods touch;
// Samples is what it trains on, Err says why Run failed (nil before Run).
type Job interface {
	Run()
	Samples() int
	Err() error
}

// Eval asks the runtime to evaluate Params (shared: do not modify) on its
// local training data and to call Evaluated with Token.
type Eval struct {
	Token  uint64
	Params []float32
}

// Ready is what a core wants done.
type Ready struct {
	Sends []Send
	Train *Train
	Evals []Eval
}

// Status is a core's state as a volunteer sees it.
type Status struct {
	// Method is the task spec's method name.
	Method string `json:"method"`
	// Round is the peer's round (D-PSGD's round, Gossip's trainings).
	Round int `json:"round"`
	// MaxRounds is the task's max_rounds as the core runs it: its
	// trainings (Plexus: the last round) before Role says "done"; 0: no
	// bound.
	MaxRounds int `json:"max_rounds,omitempty"`
	// Role is what the peer does now: "training", "waiting" (for the
	// neighbours' models of the round), "idle", "done"; Plexus's
	// "trainer" and "aggregator".
	Role string `json:"role"`
	// Peers is the number of peers the core exchanges with.
	Peers int `json:"peers"`
	// ModelsSent, ModelsReceived count models; Refused messages refused.
	ModelsSent     uint64 `json:"models_sent"`
	ModelsReceived uint64 `json:"models_received"`
	Refused        uint64 `json:"refused"`
	// Timeouts counts rounds that went on without every neighbour's model.
	Timeouts uint64 `json:"timeouts,omitempty"`
	// Stale counts models that arrived for a round the peer had passed.
	Stale uint64 `json:"stale,omitempty"`
	// Candidates are the peers sampled in the current round (PENS), and
	// Selected those whose models it averages; Neighbours PENS's step-2
	// neighbours once step 1 is over.
	Candidates []ident.Peer `json:"candidates,omitempty"`
	Selected   []ident.Peer `json:"selected,omitempty"`
	Neighbours []ident.Peer `json:"neighbours,omitempty"`
	// Members is the size of Plexus's membership view; Sample and
	// Aggregator are Plexus's S^Round and a^Round as this peer's view
	// computes them; Aggregated the recent rounds this peer averaged.
	Members    int          `json:"members,omitempty"`
	Sample     []ident.Peer `json:"sample,omitempty"`
	Aggregator *ident.Peer  `json:"aggregator,omitempty"`
	Aggregated []uint64     `json:"aggregated,omitempty"`
	// Missed are the members Plexus ranks last for a missed aggregator
	// role (plexus.View.Missed): Aggregator is the first of the ranking
	// that is not one of them.
	Missed []ident.Peer `json:"missed,omitempty"`
}
