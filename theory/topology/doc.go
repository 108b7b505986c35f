// Package topology builds the overlay graph families compared in the FedLay
// paper (ring, Chord, random regular, FedLay) and the graph models of the
// initialisation-gain paper (Erdős–Rényi, Barabási–Albert, power-law
// configuration model), and measures them: the Metropolis–Hastings
// convergence factor 1/(1-λ)², diameter, average shortest path and the
// steady-state vector v_steady of the DecAvg averaging matrix.
//
// It is a core package: pure computation, no I/O, and it builds for
// GOOS=js GOARCH=wasm. All randomness comes from a *rand.Rand passed in.
package topology
