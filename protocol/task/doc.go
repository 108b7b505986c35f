// Package task describes a PeerLearn training task: the data set (a
// built-in one, or the task's own named by its manifest: Data) and its
// partition, the model architecture (a built-in one, or one the spec
// declares: Model; protocol/task/taskarch builds it for the engine), the
// aggregation rule, the neighbour
// selection policy, the initialisation, the local training and timing
// parameters, the target accuracy and the peer limit.
//
// A Spec has one canonical encoding (JSON with sorted keys, no spaces, the
// partition spec in types/partition's canonical form), and a task is named by the
// SHA-256 of that encoding, its ID (an ident.Task). Every model a peer
// sends carries the ID of its task so that models of different
// tasks never mix: two specs differing in any field, the name included, are
// different tasks.
//
// The package holds the spec, its canonical form and ID only: it does not
// link the training engine (engine/), so that the signalling server,
// which hosts tasks and hands their specs out, links none of it. Checks
// that need the engine come from the edge that has it (Engine,
// ValidateFor).
//
// The spec format is versioned (Spec.Version, currently SpecVersion);
// older versions from MinSpecVersion on still load, with their own
// canonical form and ID, and any other version is refused, never guessed
// at.
package task
