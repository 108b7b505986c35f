package learn

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Config configures one Peer.
type Config struct {
	// ID is the peer (its overlay ID). Must be set.
	ID ident.Peer
	// Arch is the model architecture (nn.NewArch or nn.ArchFor).
	Arch nn.Arch
	// Optimizer is the local optimiser.
	Optimizer OptimizerConfig
	// Batch is the minibatch size of local training.
	Batch int
	// LocalSteps is the number of minibatches per round; when 0,
	// LocalEpochs passes over the local data are made instead.
	LocalSteps int
	// LocalEpochs is the number of passes over the local data per round
	// (used when LocalSteps is 0).
	LocalEpochs int
	// Aggregator names the aggregation rule (aggregate.Names: "mean",
	// "decavg", "fedlay", "dechw", the robust "clipped-..." forms of
	// those, "median", "trimmed-mean"). FedAvg is a server rule, not a
	// peer's. Among untrusted peers use aggregate.SafeDefault.
	Aggregator string
	// DecHW configures the "dechw" and "clipped-dechw" aggregators.
	DecHW aggregate.DecHWConfig
	// Bounds and Clip configure the "clipped-..." aggregators: Bounds
	// caps neighbours' claims (set Bounds.MaxDataSize to the task's
	// declared largest shard, if it has one), Clip the clipping radius.
	Bounds aggregate.Bounds
	Clip   aggregate.ClipConfig
	// Trim is the share "trimmed-mean" drops at each end, in [0, 0.5).
	Trim float64
	// Screen, if its Loss is set, evaluates every neighbour's model on a
	// held-out slice of our own data before aggregation and refuses the
	// ones far worse than ours (ScreenConfig). Off by default: the
	// runtime owns the held-out data.
	Screen ScreenConfig
	// Health runs the neighbourhood check (HealthConfig); off by default.
	Health HealthConfig
	// Reputation scores the neighbours from every aggregation's report
	// (Peer.ShouldDrop); the zero value never reports anyone.
	Reputation aggregate.ReputationConfig
	// HessianSamples bounds the local samples DecHW's Hessian diagonal is
	// estimated on (the first ones of the shard); 0 means all.
	HessianSamples int
	// Init is how the peer draws its initial model.
	Init Init
	// ResetOptimizer drops the optimiser state after every aggregation
	// (Algorithm 1, line 15, of the initialisation-gain paper).
	ResetOptimizer bool
	// Seed seeds the peer's random source (initialisation, minibatch
	// order). Give every peer its own.
	Seed uint64
	// MEP holds the MEP timing (Period, Tier, timeouts, JoinWait,
	// MaxNeighbors) for asynchronous mode; ID, Task, Arch, NumParams,
	// DataSize and DataConf are filled in by NewPeer.
	MEP mep.Config
	// Task identifies the learning task; models of another task are
	// refused by the MEP. Zero: derived from the architecture.
	Task ident.Task
	// Logf, if not nil, receives refusals and failed rounds.
	Logf func(format string, args ...any)
	// NewBackend, if not nil, builds the nn.Backend that local training
	// and the Hessian diagonal run on (gpu.Factory for a libtorch
	// companion), from the architecture and a fresh optimiser; nil means
	// the pure-Go nn.Trainer. The peer's nn.Model stays the parameter
	// store: each round copies it into the backend before training and
	// back after, so the peer's models are the same for its neighbours.
	NewBackend func(arch nn.Arch, opt nn.Optimizer) (nn.Backend, error)
	// Yield, if not nil, is called between training batches and inside
	// evaluations, on the goroutine running the Work. A browser peer
	// passes a function that lets the event loop run (Go-wasm is
	// single-threaded: without it a round blocks networking).
	Yield func()
}

// OptimizerConfig names a local optimiser and its hyper-parameters.
type OptimizerConfig struct {
	// Name is "sgd", "adam" or "adamw".
	Name string
	// LR is the learning rate.
	LR float32
	// Momentum is SGD's momentum.
	Momentum float32
	// WeightDecay is SGD's L2 or AdamW's decoupled decay.
	WeightDecay float32
}

// New returns a fresh optimiser.
func (o OptimizerConfig) New() (nn.Optimizer, error) {
	switch o.Name {
	case "sgd":
		return nn.NewSGD(o.LR, o.Momentum, o.WeightDecay)
	case "adam":
		return nn.NewAdam(o.LR)
	case "adamw":
		return nn.NewAdamW(o.LR, o.WeightDecay)
	}
	return nil, fmt.Errorf("%w: optimiser %q (want sgd, adam or adamw)", ErrConfig, o.Name)
}

// DefaultConfig returns FedLay-style defaults: SGD with momentum, batch 32,
// one local epoch per round, FedLay confidence aggregation, independent He
// initialisation, the MEP's default timing. Set ID, Arch and Seed.
func DefaultConfig() Config {
	return Config{
		Optimizer:   OptimizerConfig{Name: "sgd", LR: 0.05, Momentum: 0.9}, // a stable MLP setting on MNIST
		Batch:       32,                                                    // small batches, many steps per epoch
		LocalEpochs: 1,                                                     // one pass over the shard per round
		Aggregator:  "fedlay",                                              // FedLay's confidence weights
		DecHW:       aggregate.DefaultDecHWConfig(),                        // beta 1, Hessian every round
		Bounds:      aggregate.DefaultBounds(),                             // claims capped relative to the neighbourhood
		Clip:        aggregate.DefaultClipConfig(),                         // clip at 1.5x the closest third, drop beyond 2.5x
		Trim:        aggregate.DefaultTrim,                                 // a fifth at each end
		Reputation:  aggregate.DefaultReputationConfig(),                   // 3 far-out rounds to be reported
		Init:        Init{Mode: InitHe},                                    // uncoordinated He normal
		MEP:         mep.DefaultConfig(),                                   // 3 s period at 100 ms ticks
	}
}

// ArchTag is the architecture tag peers compare before averaging: the
// name and the layout checksum.
func ArchTag(a nn.Arch) (string, error) {
	sum, err := a.ShapeChecksum()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return fmt.Sprintf("%s/%016x", a.Name, sum), nil
}

// validate checks the fields NewPeer needs before building anything.
func (c *Config) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
	}
	switch {
	case c.ID == ident.Peer{}:
		return bad("ID not set")
	case c.Batch < 1:
		return bad("Batch %d", c.Batch)
	case c.LocalSteps < 0 || c.LocalEpochs < 0 || (c.LocalSteps == 0 && c.LocalEpochs == 0):
		return bad("LocalSteps %d, LocalEpochs %d: want one positive", c.LocalSteps, c.LocalEpochs)
	case c.HessianSamples < 0:
		return bad("HessianSamples %d", c.HessianSamples)
	case c.Aggregator == "fedavg":
		return bad("fedavg is the server's rule; peers use mean, decavg, fedlay or dechw")
	}
	if err := c.Screen.validate(); err != nil {
		return err
	}
	if err := c.Health.validate(); err != nil {
		return err
	}
	if err := c.Reputation.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return c.Init.validate()
}

// InitMode is how a peer draws its initial parameters.
type InitMode uint8

const (
	// InitHe: independent He normal initialisation per peer
	// (uncoordinated, the de-facto standard of centralised training).
	InitHe InitMode = iota + 1
	// InitGain: independent He normal multiplied by Init.Gain on every
	// layer: 1/||v_steady|| of the communication graph, exact
	// (initgain.ExactGain) or approximate from an estimate of n and the
	// topology family (initgain.ApproxGain; sqrt(n) for regular graphs),
	// as the initialisation-gain paper proposes.
	InitGain
	// InitCommon: every peer draws the same parameters from
	// Init.CommonSeed (a coordinated start, as if a server had sent them).
	InitCommon
	// InitWeights: every peer starts from Init.Weights, the task's
	// declared initial model (model.weights, read by the shell: a
	// safetensors file it fetched and checked by sha256).
	InitWeights
)

// String names the mode.
func (m InitMode) String() string {
	switch m {
	case InitHe:
		return "he"
	case InitGain:
		return "he-gain"
	case InitCommon:
		return "common"
	case InitWeights:
		return "weights"
	}
	return fmt.Sprintf("InitMode(%d)", uint8(m))
}

// Init chooses the initial parameters.
type Init struct {
	Mode InitMode
	// Gain multiplies every layer's He weights (InitGain only), > 0.
	Gain float64
	// CommonSeed seeds the shared parameters (InitCommon only).
	CommonSeed uint64
	// Weights are the initial parameters (InitWeights only): the
	// model's count, every value finite. Read only.
	Weights []float32
}

func (i Init) validate() error {
	switch i.Mode {
	case InitHe, InitCommon:
		return nil
	case InitWeights:
		if len(i.Weights) == 0 {
			return fmt.Errorf("%w: init weights: none given", ErrConfig)
		}
		return nil
	case InitGain:
		if !(i.Gain > 0) || math.IsInf(i.Gain, 1) {
			return fmt.Errorf("%w: init gain %v", ErrConfig, i.Gain)
		}
		return nil
	}
	return fmt.Errorf("%w: init mode %d", ErrConfig, i.Mode)
}
