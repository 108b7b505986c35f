// Package mep is FedLay's Model Exchange Protocol (Sec. III-C of the
// FedLay paper) for one peer, as a pure state machine in the style of
// etcd raft: inputs come in through SetNeighbors, Tick, Step and the
// Report* calls; everything the outside world must do comes out in a
// Ready batch. It does no I/O, starts no goroutines and reads no clock:
// time is counted in ticks.
//
// Protocol, per peer u with period T_u:
//
//   - To each neighbour v, at most once per pair period max(T_u, T_v)
//     (and on the first tick after v became a neighbour), u offers the
//     fingerprint of its current model (MsgOffer), unless v is known to
//     hold it. A new model is offered as soon as it is published if the
//     pair period since the last offer to v has passed, else when it
//     has: a pair period in which nothing was offered does not delay the
//     next model. (Offering only on a fixed pair-period clock left
//     neighbours aggregating models two rounds old, which cost FedLay
//     2.7 points against FedAvg on fedlay-mnist; see docs/RESULTS.md.)
//   - v answers MsgHave (it holds that model, or a newer one from u) or
//     MsgNeed; only on MsgNeed does u send the model (MsgModel: a header,
//     with the parameters carried by the transport). A model is sent to a
//     neighbour at most once, duplicate MsgNeed included.
//   - v keeps only the freshest model of each current neighbour (highest
//     version, fingerprint verified) and forgets a neighbour's model when
//     it leaves the neighbour set.
//   - Every T_u ticks u emits a Round: aggregate its model with the
//     freshest models of its current neighbours, then train locally. The
//     caller reports the result with ReportTrained, which publishes the
//     new model (new version and fingerprint) for the next offers. At most
//     one round is in flight; an overdue round starts when the last ends.
//
// Late joiners: a peer without a model of its own (just started or
// joined) does not offer. Its first round comes T_u ticks after start,
// by when its neighbours, who offer to a new neighbour at once, have
// normally delivered their models. If a model it asked for is still on
// the way it waits for it, at most Config.JoinWait more ticks. Then, if
// it holds any neighbour model, the round is RoundAdopt: aggregate the
// neighbours' models without its own untrained one (adopting the
// neighbourhood's state, which FedLay's Fig. 18 shows lets joiners catch
// up quickly), and train from there. If it holds none (a fresh network)
// the round is RoundInit: initialise locally and train.
//
// Control messages have a versioned binary codec (Encode/Decode); model
// payloads are carried, chunked, by the transport.
package mep
