// Package simnet is an in-memory network on a discrete-event scheduler
// with virtual time: per-link latency drawn from a seeded distribution,
// loss, partitions and crashes, generic over addresses and payloads. It
// is deterministic: the same seed and the same calls give the same event
// order and the same result. Nothing here reads a clock or starts a
// goroutine; time passes only as events run.
//
// Cluster drives overlay Nodes on it.
package simnet
