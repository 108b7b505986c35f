// Package attack is the adaptive attacker's search (issue #26): given an
// aggregation rule and its parameters, find the strongest model the rule
// still accepts at full weight (Shejwalkar and Houmansadr, NDSS 2021,
// "AGR-tailored" attacks). It belongs to the attack lab (sim/dflsim, on
// virtual time) and to the attack build (peer/netpeer's attack_blind.go,
// -tags attack): no shipped peer sends what it makes (cmd/peerlearn's
// TestPeerlearnLinksNoAttack checks that only sim/ imports it there).
//
// Pure: no goroutines, clocks or sockets; randomness from the caller.
package attack
