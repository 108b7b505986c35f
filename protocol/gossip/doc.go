// Package gossip holds the two decentralized-learning baselines of the
// Plexus paper as pure pieces:
//
//   - Gossip Learning (Ormándi et al.; Hegedűs et al., DAIS 2019): every
//     Period ticks a Node sends its current model and its age to one
//     peer drawn at random from its peer-sampling view. A Node that
//     receives a model merges it with its own, weighted by age,
//     w = (a_l w_l + a_r w_r) / (a_l + a_r) with age max(a_l, a_r)
//     (Merge; a plain mean when both ages are 0, adoption when it has no
//     model yet), and hands the merged model out for a local update
//     (Ready.Update); ReportTrained publishes the result with its age
//     grown by the update's size (samples or steps). A model that
//     arrives during an update waits; a newer arrival replaces it.
//   - D-PSGD (Lian et al., NeurIPS 2017): synchronous rounds in which
//     every node replaces its model by a weighted mean over its
//     in-neighbours and itself, x_i <- sum_j W_ij(t) x_j, then takes its
//     local step. Schedule gives the row W_i.(t) and whom to send to:
//     StaticGraph (any topology.Graph, e.g. the paper's 10-regular
//     graph, with Metropolis-Hastings weights, uniform 1/(k+1) on a
//     k-regular graph) and OnePeerExp (Ying et al. 2021: at round t node
//     i averages half-half with node i + 2^(t mod ⌈log2 n⌉) mod n, so
//     every node sends and receives exactly one model per round). Mix
//     runs one mixing step for all nodes of a simulation, MixInto one
//     node's step from the models it received.
//
// Messages (the gossip model push) have a versioned binary codec; model
// parameters are the transport's payload. The package does no I/O,
// starts no goroutines and reads no clock; its randomness comes from the
// *rand.Rand given to NewNode. It builds for GOOS=js GOARCH=wasm.
package gossip
