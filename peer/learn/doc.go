// Package learn is one peer's decentralized learning loop, independent of
// its transport: the peer owns its local data shard, its nn model and
// optimiser, an aggregator and a FedLay MEP state machine (package mep),
// trains on the shard, exchanges models with its overlay neighbours and
// aggregates them.
//
// Two modes share one Peer:
//
//   - Asynchronous (FedLay's MEP, Sec. III-C): the caller ticks the peer
//     (Tick), hands it the messages that arrive (Step) and serves its
//     Ready: Messages to send and, every T_u ticks, a Work to run. On a
//     real peer and in methodsim the caller is peer/node's FedLay, the
//     MEP as a method core; sim/dflsim's AsyncRun drives it directly. The MEP
//     offers fingerprints before models, on the pair period max(T_u, T_v),
//     and keeps each neighbour's freshest model.
//   - Synchronous rounds (SyncWork): every peer aggregates the models its
//     neighbours published in the previous round, then trains E local
//     epochs or steps, as in the DecHW and initialisation-gain papers.
//
// The heavy computation (aggregation, local training, the Hessian
// diagonal for DecHW) is a Work: the caller runs Work.Run wherever it
// likes (a worker pool, another core) and then hands the Work back to
// Finish at a moment of its choosing (a deterministic virtual time in a
// simulation). Run touches only the peer's own model, optimiser, batch
// iterator and aggregator, and draws only from the peer's own seeded
// random source, so the result does not depend on where or when Run ran.
// At most one Work per peer is outstanding.
//
// Models that are not finite, of another architecture or of another
// length are refused by the aggregator (package aggregate) or by the MEP,
// counted in Metrics and reported to Config.Logf; they never enter an
// average.
//
// With Config.Health on, each aggregating round first runs the
// neighbourhood check of engine/health (health.go): our published model
// and each neighbour's are scored on our own data, and while the check
// says the neighbourhood is captured only the neighbours that agree with
// our data are aggregated; Health and TakeReplace tell the runtime.
//
// The package is pure computation: no I/O, goroutines, clocks or global
// randomness; it builds for GOOS=js GOARCH=wasm.
package learn
