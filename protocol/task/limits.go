package task

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
