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
//   - Cluster: overlay Nodes on a Network[ident.Peer, []byte], each
//     ticking every ClusterConfig.Tick of virtual time with a random phase,
//     messages travelling encoded.
//
// A harness drives a Cluster like this (see Example):
//
//	c, _ := simnet.NewCluster(cfg)           // cfg := DefaultClusterConfig(), then adjust
//	c.Grow(ids, batch, rng, limit)           // build: joins batch at a time, waits for correctness
//	c.AddNode(id); c.Join(id, via)           // one join now (through any live member)
//	c.Crash(id); c.Leave(id)                 // failure, graceful leave
//	c.Network().Partition(g1, g2); ...Heal() // partitions
//	c.RunFor(d); c.RunUntilCorrect(limit, every)
//	c.Correctness()                          // vs the correct overlay on c.Live(); .Fraction() is Fig. 8's metric
//	c.Sent()                                 // messages by type (overlay.Counts), all nodes
//	c.Network().Counters(id)                 // one node's messages and bytes
//	c.Errors()                               // messages nodes rejected: 0 in a correct run
//
// Messages per node: c.Sent().Total(types...) / n, with
// overlay.ConstructionTypes (everything but heartbeats and Route) or the
// join path (Join, Discover, DiscoverReply, Link, Hint).
package simnet
