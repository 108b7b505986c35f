// Package plexus is Plexus, federated learning without a server (Dhasade
// et al., EuroMLSys '25), as a pure per-peer state machine in the style
// of package mep: inputs come in through Start, Tick, Step and the
// Report* calls; everything the outside world must do comes out in a
// Ready batch (messages to send, models to train, models to average). It
// does no I/O, starts no goroutines and reads no clock: time is counted
// in ticks.
//
// # Sampling (Algorithm 1)
//
// Every peer keeps a membership View: (ID, advertised bandwidth) pairs,
// filled by the caller before training and refreshed by every message
// received (each carries its sender's bandwidth). The sample of round k
// is S^k = the first s members sorted by SHA-256(ID || k) (k as 8
// big-endian bytes); its aggregator a^k is the member with the largest
// bandwidth, ties to the smaller ID. Peers with the same view compute the
// same samples and aggregators; views that differ give samples that
// "mostly" agree, and the protocol trusts the sender: a peer acts on any
// train request or trained model addressed to it.
//
// # Rounds (Algorithm 2)
//
// Start gives the members of S^1 a TrainTask from the common initial
// model. A member of S^k that receives train(k, θ) trains θ
// (TrainTask/ReportTrained) and sends the result (MsgTrained) to a^k.
// The aggregator collects the models of round k (its own included); once
// it holds floor(min(s, |S^k|) * sf) of them (at least 1) it averages
// them (AggregateTask/ReportAggregated; AggregateTask.FedAvg is the
// server's weighted mean), tells every other member of S^k and S^k+1
// that round k is over (MsgAggregated, a header without payload) and
// then pushes train(k+1, θ_agg) to the members of S^k+1. Models that
// arrive later are dropped.
//
// # Failures (not specified by the paper; decided here)
//
// Plexus is push-based: a peer outside S^k does not know that round k is
// running, so only the members of S^k can notice that it stalls. They
// do, with two timeouts:
//
//   - T_agg (Config.AggTimeout), at the aggregator: if the success
//     fraction is not reached within T_agg of the round's start at the
//     aggregator (its own train request, or for a fallback aggregator its
//     first received model), it averages what it holds, if it holds at
//     least one model, and the round proceeds with fewer models. With
//     none it keeps waiting and averages the first model that arrives.
//   - T_round (Config.RoundTimeout > T_agg), at each member: after
//     sending its trained model to the aggregator of rank r it waits
//     T_round for evidence that round k completed (MsgAggregated(k) or
//     MsgOver(k), or train(k') for k' > k). Without it, it re-sends the model to the
//     aggregator of rank r+1: ranks are S^k ordered by bandwidth,
//     largest first, ties to the smaller ID, the same order at every
//     member with the same view, so all surviving members converge on
//     the same fallback aggregator, the next-best-bandwidth member of
//     S^k. That peer, on its first model of round k, becomes round k's
//     aggregator (adding its own trained model) with its own T_agg, and
//     then proceeds exactly as a^k would have. After Config.MaxAttempts
//     ranks a member gives up on the round (Stats.GaveUp).
//
// A member whose aggregator stayed silent for T_round ranks it last from
// then on (View.Missed: behind every member that has not missed its
// role, whatever its bandwidth), and so does every peer that learns a
// round was aggregated by a rank behind it (its train request or
// MsgAggregated: the ranks ahead of the sender missed theirs, as the
// sender's view saw it). Members are never dropped from the view, so
// without this a dead member with the best rank made every round that
// sampled it wait T_round; now the news travels with the rounds and
// only the first pays T_round (a peer that has not heard yet costs its
// round T_agg at the fallback aggregator at most). A message from a
// missed member clears it (View.Heard).
//
// An aggregator can also die after averaging round k, while sending:
// its short announcements arrive, its train requests (the model) reach
// part of S^k+1 or none of it. Part is absorbed like a member that
// crashed; with none, round k's model is lost and nobody would start
// round k+1 (a real peer SIGKILLed so stopped training for good). So a
// member of S^k+1 that hears round k is over (MsgAggregated, or MsgOver
// below) and gets no train(k+1) within T_round (T_agg after a MsgOver)
// gives the ranks of S^k+1, in Ranking's order, one T_round each to
// restart it: the rank whose turn comes is told round k is over
// (MsgOver) and, after its own T_agg, pushes MsgOver(k) and then
// train(k+1, θ) to S^k+1, θ the newest global model it holds
// (Stats.Resumes), and a rank whose turn passes silently is ranked last
// (View.Missed). Any sign of round k+1 (its train request, a model of
// it, its end) stops the wait; one wait at a time, each rank one turn,
// so the restart costs T_round, one T_round per rank ahead of the first
// live one that knows, and T_agg. A member of S^k that escalates its
// model to a peer that knows round k is over is answered MsgOver (one
// header per model received), so it stops escalating and, if it is in
// S^k+1, waits as above: the news reaches S^k+1 through S^k ∩ S^k+1
// even if no announcement to S^k+1 arrived. Not covered: no live member
// of S^k+1 hears of round k's end (no announcement to it arrived and
// S^k ∩ S^k+1 holds no live member but the aggregator).
//
// If the primary aggregator was only slow, round k may be aggregated
// twice and S^k+1 receive two train requests: each member trains on the
// first and ignores the second (Stats.DuplicateTrains). The round then
// continues normally, since a round's aggregator does not depend on who
// pushed the train request.
//
// Not covered: if every member of S^k is down (or every aggregator rank
// tried), the global model is lost and training stops; a peer that
// crashes while training simply contributes nothing (the success
// fraction and T_agg absorb it). Round numbers older than Window rounds
// behind the newest one seen are forgotten and their messages dropped.
//
// # Accounting
//
// Stats counts messages and bytes (header plus 4 bytes per parameter of
// payload) sent and received per message type, training calls and the
// training cost the caller reports (its own units), aggregations,
// timeouts and escalations.
//
// Messages have a versioned binary codec (Encode/Decode) for the header;
// model parameters are the transport's payload.
package plexus
