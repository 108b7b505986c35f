package task

import (
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
)

// Limits on spec fields.
const (
	MaxSpecSize  = 16 << 10 // bytes of an encoded spec
	MaxNameLen   = 64       // bytes of Name
	MaxPeersCap  = 100_000  // MaxPeers and Partition.Parts
	MaxBatch     = 4096     // Batch
	MaxEpochs    = 1000     // LocalEpochs
	MaxSteps     = 1 << 20  // LocalSteps
	MaxRoundsCap = 1 << 30  // MaxRounds
	MinPeriodMS  = 100      // PeriodMS: one MEP tick
	MaxPeriodMS  = 3600_000 // PeriodMS: an hour
	MaxSelectK   = 64       // Selection.K (FedLay has at most 2L neighbours)
	MaxLR        = 10.0     // Optimizer.LR
	MaxGain      = 100.0    // Init.Gain
)

// SelectionPolicies lists the neighbour selection policies a spec may
// name: "overlay" (FedLay: every overlay neighbour, no choice) and the
// kinds of package selection (the PENS thesis' policies and the Local
// baseline) except "oracle", which needs the true clusters and so exists
// only in simulations. A test keeps this list in step with
// selection.ParseKind.
func SelectionPolicies() []string {
	return []string{"overlay", "local", "random", "greedy", "epsilon-greedy", "pens", "random-weighted"}
}

// InitModes lists the init modes (learn.InitMode's names).
func InitModes() []string { return []string{"he", "he-gain", "common"} }

// OptimizerNames lists the optimisers (learn.OptimizerConfig's names).
func OptimizerNames() []string { return []string{"sgd", "adam", "adamw"} }

// AggregatorNames lists the aggregators a task may use: aggregate.Names
// without "fedavg", a server's rule that no peer runs.
func AggregatorNames() []string {
	return slices.DeleteFunc(aggregate.Names(), func(n string) bool { return n == "fedavg" })
}

// ArchNames lists the architectures (nn.ArchNames).
func ArchNames() []string { return nn.ArchNames() }

// DatasetNames lists the data sets (data.Names).
func DatasetNames() []string { return data.Names() }
