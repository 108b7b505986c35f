// Package evalreq is the "evaluate my model on your local training data"
// exchange used by performance-based neighbour selection (PENS and its
// Greedy, EpsilonGreedy and RandomWeighted relatives, package selection).
//
// A requester sends its current model (MsgEvalRequest: a header, the
// parameters carried by the transport) to a sampled peer; the peer
// evaluates that model on its own training data and answers with the loss
// and the accuracy (MsgEvalResult), or refuses (MsgEvalRefused with a
// Reason). Data never leaves the responder: only two numbers and the
// number of samples they were measured on.
//
// Both sides are pure state machines driven by ticks:
//
//   - Responder (responder side) admits or refuses each request: a token
//     bucket in ticks bounds the evaluation load, a policy switch refuses
//     everything, and a model of another architecture or length is
//     refused. The caller evaluates the admitted requests and turns the
//     numbers into a reply with Answer.
//   - Poll (requester side) issues the requests of one selection round,
//     matches the replies and times out the silent peers; its Results
//     feed package selection.
//
// Control messages have a versioned binary codec (Encode/Decode); model
// parameters are the transport's payload. The package does no I/O,
// starts no goroutines and reads no clock; it builds for GOOS=js
// GOARCH=wasm.
package evalreq
