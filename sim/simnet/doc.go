// Package simnet is an in-memory network on a discrete-event scheduler
// with virtual time: per-link latency drawn from a seeded distribution,
// loss, partitions and crashes, generic over addresses and payloads. It
// is deterministic: the same seed and the same calls give the same event
// order and the same result (equal-time events run in scheduling order).
// Nothing here reads a clock or starts a goroutine; time passes only as
// events run.
//
//   - Scheduler: the event queue (At, After, Step, RunUntil, RunFor).
//   - Network[A, M]: nodes attached with a Handler; Send, Crash,
//     Partition/Heal, SetLinkLatency, per-node Counters. Endpoint is one
//     node's Transport (Send(to, m)); Endpoint[ident.Peer, []byte] is an
//     overlay.Transport, and the same network can carry model exchange.
//   - Latency: Fixed, Uniform, Normal, Exponential.
//
// simnet knows no protocol: package overlaynet puts FedLay overlay nodes
// on it, and dflsim and methodsim put learning peers on it.
package simnet
