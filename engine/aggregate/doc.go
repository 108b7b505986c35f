// Package aggregate combines a peer's model with its neighbours' models.
//
// Every aggregator works on flat []float32 parameter vectors and implements
// one interface, Aggregator: Aggregate(self, others, out). Implementations:
//
//   - Mean: plain average over self and neighbours (gossip / D-PSGD style).
//   - DecAvg: weights |D_j| over the closed neighbourhood (DecAvg, Eq. 3 of
//     the initialisation-gain paper; DecHetero in the DecHW paper).
//   - FedAvg: the server-side weighted mean by data size over the clients'
//     models (the centralised upper-bound baseline).
//   - FedLay: weights given by FedLay's confidence c = a_d c_d/max c_d +
//     a_c c_c/max c_c (Sec. III-C of the FedLay paper), normalised over the
//     closed neighbourhood.
//   - DecHW: per-parameter weights from the accumulated, normalised Hessian
//     diagonal (Eqs. 4-8 and Algorithm 1 of the DecHW paper), with the
//     data-size fallback and the theta-round limit.
//
// These are the papers' rules and trust every neighbour: one that lies
// about its DataSize, period, data confidence or Hessian, or sends a huge
// model, takes the average over. For untrusted neighbours (any browser
// may join a task) there are robust rules:
//
//   - Robust ("clipped-mean", "clipped-decavg", "clipped-fedlay",
//     "clipped-dechw"): Bounds cut every self-reported claim to a multiple
//     of the neighbourhood's or our own, then each neighbour's model is
//     clipped to within tau of ours (ClippedGossip), then the named rule
//     weighs the result. SafeDefault names the one for new tasks.
//   - Median and TrimmedMean ("median", "trimmed-mean"): coordinate-wise
//     over the closed neighbourhood, ignoring every claim.
//   - Reputation: a bounded per-neighbour score fed with each Report
//     (refusals, Outliers); ShouldDrop names repeat offenders.
//
// All share one validation step: a contribution with a non-finite value, a
// different architecture tag or a different length is refused, counted in
// the Report with its reason, and never enters the average. Self must be
// valid, else Aggregate fails and leaves out untouched.
//
// The package is pure computation: no I/O, goroutines, clocks or global
// randomness; it builds for GOOS=js GOARCH=wasm.
package aggregate
