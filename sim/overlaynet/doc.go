// Package overlaynet runs FedLay overlay nodes (protocol/overlay) on a
// simulated network (sim/simnet): a Cluster of Nodes on a
// simnet.Network[ident.Peer, []byte], each ticking every ClusterConfig.Tick
// of virtual time with a random phase, messages travelling encoded.
//
// A harness drives a Cluster like this (see Example):
//
//	c, _ := overlaynet.NewCluster(cfg)       // cfg := DefaultClusterConfig(), then adjust
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
package overlaynet
