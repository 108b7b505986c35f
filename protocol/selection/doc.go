// Package selection chooses, round by round, the peers whose models a
// peer averages with: the neighbour-selection policies of the PENS thesis
// (Algorithms 1-5: Random, Greedy, EpsilonGreedy, PENS, RandomWeighted)
// and its baselines Oracle (true cluster membership known) and Local (no
// neighbours), plus the precision/recall of a selection against the true
// clusters (Table 4.3).
//
// # Who evaluates what
//
// In Greedy, EpsilonGreedy, PENS and RandomWeighted the selecting peer
// sends its own current model to each sampled candidate and asks it to
// evaluate that model on the candidate's training data (package evalreq).
// A candidate whose data resembles ours reports a low loss (high
// accuracy) for our model; those are the neighbours to keep. The thesis
// ranks by accuracy (Algorithm 2, line 15); the published PENS paper by
// loss. Config.Metric picks either; MetricLoss is the default.
//
// # Driving a policy
//
// One call sequence per round t = 1, 2, ...:
//
//	plan := p.Plan(t)
//	// draw plan.Samples independent samples of plan.Size distinct peers
//	// (never self); if plan.Evaluate, poll each for an evaluation of the
//	// current model and fill Candidate.Loss/Accuracy/Evaluated
//	// (FromResults converts an evalreq.Poll's results); if
//	// plan.SelfEvaluate, measure our model's accuracy on our own
//	// validation set.
//	sel, err := p.Select(t, samples, rng)
//	// fetch the models of sel; drop from sel the peers whose model did
//	// not arrive, then
//	w, err := p.Weights(selfAccuracy, sel)
//	rep, err := Average(self, models, w, out) // models[i] from sel[i]
//	// and train locally
//
// Candidates come from the caller's membership knowledge: in PeerLearn a
// sample is obtained by routing to uniformly random overlay coordinates
// (overlay.Coordinate space) and taking the peers responsible for them,
// which is close to, but not exactly, uniform over peers (a peer's chance
// grows with the arc it covers). Policies that draw from their own pool
// (PENS step 2, Oracle) ask for no samples (Plan.Samples == 0) and return
// peers from that pool; Local never selects anyone.
//
// Candidates that were not evaluated (the peer refused or timed out) are
// treated as not sampled by the evaluation-based policies: they are
// neither ranked nor counted in PENS's history.
//
// The package is pure computation: no I/O, goroutines, clocks or global
// randomness (every random choice comes from the *rand.Rand passed to
// Select); it builds for GOOS=js GOARCH=wasm.
package selection
