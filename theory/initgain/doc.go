// Package initgain implements the uncoordinated initialisation of
// Badie-Modiri et al., "Initialisation and Network Effects in
// Decentralised Federated Learning": every node draws its weights
// independently (He et al.) and multiplies each layer by the gain
// 1/‖v_steady‖, so that after the first rounds of DecAvg averaging
// compress the parameters by ‖v_steady‖ they are back at the He scale.
//
// v_steady is the stationary vector (sum 1) of A' = column-normalised
// (A + I), the DecAvg averaging matrix of Eq. (3)-(4) of the paper. It is
// one vector for the whole graph, so the gain is one scalar that every
// node applies to every layer. ‖v_steady‖ >= 1/√n with equality exactly
// on regular graphs, so the gain is at most √n.
//
// The package offers
//   - exact gains from a graph, a degree sequence, or any row-stochastic
//     mixing matrix (ExactGain, GainFromDegrees, MixingGain);
//   - approximate gains from an estimate of n and the topology family
//     (ApproxGain with Regular, ErdosRenyi, BarabasiAlbert, PowerLaw or a
//     fitted ScalingLaw) or from a sample of degrees;
//   - a push-sum gossip estimator of n (PushSum), a pure state machine;
//   - the initialisation modes of the learning loop (Config, Gains);
//   - the numeric model of Sec. 4.2 (SigmaModel): σ_an and σ_ap over
//     rounds, simulated and in expectation.
//
// It is a core package: pure computation, no I/O, no goroutines or clocks,
// and it builds for GOOS=js GOARCH=wasm. Randomness comes only from a
// *rand.Rand passed in.
package initgain
