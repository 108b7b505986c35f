// Package health is a peer's check on its own neighbourhood (issue #26
// item 3): does most of it pull against the peer's own data, the sign of
// a captured neighbourhood (attackers that ground their way into most of
// its places, as docs/SECURITY.md "Costly identities" prices)?
//
// The robust rules (engine/aggregate) judge a neighbour's model by where
// it lies relative to the others and to ours, so attackers who hold most
// of a neighbourhood decide what "the others" are. This check judges by
// what a model does: each round the peer scores its own freshly trained
// model and every neighbour's on its own local data (Score: a balanced
// accuracy in [0, 1] and a mean loss).
// The rule, fixed and stated (Config, DefaultConfig):
//
//  1. A neighbour disagrees with our data when its score (balanced
//     accuracy, Balanced) is below Ratio (one half) times ours, or its
//     mean cross-entropy on our data is above LossCap (ForClasses: ln 2k
//     for k classes), or its model is an echo of ours: closer to it than
//     EchoBelow (a tenth) of our own last step (reference collapse).
//     With AgainstBest (off by default) the score bar is Ratio times
//     the lower of ours and the best neighbour's: our own model, scored
//     on the shard it trained on, beats honest neighbours of other
//     non-IID shards by more than twice in a run's first rounds, which
//     made honest peers look captured (docs/RESULTS.md, issue #26,
//     "Neighbourhood health: the false alarms' reference").
//  2. The round is alarming when more than Quorum (half) of the
//     neighbours disagree, or all of them (and there is at least one).
//  3. After Patience alarming rounds in a row the neighbourhood is
//     Captured: from then on the peer aggregates only with the neighbours
//     that do not disagree (its own model alone if none), and asks the
//     overlay for a new placement (Verdict.Replace), again every Cooldown
//     alarming rounds while it stays captured (a new placement is a
//     rejoin: the peer then starts from the median of its new
//     neighbours' models and its own, about as a late joiner does; the
//     simulator, dflsim.Health, does so).
//  4. After Recover calm rounds in a row (new neighbours, or the old ones
//     agreeing again) it is Healthy and trusts every neighbour again.
//
// The reference is the peer's own model on its own data, which no
// neighbour can move: Zeno (Xie et al., 2019) and UBAR (Guo et al.,
// 2021) screen neighbours by their loss on the receiver's data; here the
// screen is only switched on once most of the neighbourhood fails it, so
// that honest peers on non-IID shards, whose neighbours' models always do
// somewhat worse on their data, keep every neighbour (the ratio and the
// patience were set from the lab's runs at seed 1, and checked at seeds
// 2 and 3; docs/SECURITY.md).
//
// What it does not promise: attackers that send models which do well on
// the victim's data (they do not see it, but a model close to the
// honest consensus does well everywhere) are not noticed; that is the
// robust rule's job. A
// new placement lands among f attackers on average unless they grind
// again.
//
// The package is pure computation: no I/O, goroutines or clocks; it
// builds for GOOS=js GOARCH=wasm.
package health
