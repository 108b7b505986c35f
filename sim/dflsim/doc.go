// Package dflsim runs many learning peers (learn.Peer) in one process: asynchronously over
// simnet's virtual-time network, with neighbours from the FedLay overlay
// (NDMP nodes on an overlaynet.Cluster) or from a static topology; in
// synchronous rounds on a static topology; and a centralised FedAvg
// baseline (server and clients, the same local training) as the upper
// bound. Local training and evaluation run on a worker pool across cores;
// every result is applied at a deterministic point (a virtual time, or a
// round barrier) and each peer trains with its own seeded random source,
// so the same seed gives the same run on any number of cores.
//
// Results are time series of the peers' test loss and accuracy (mean,
// minimum and maximum across peers) with traffic and training counters,
// written as CSV by WriteCSV and plotted as PNG by Plot.
package dflsim
