// Package partition is the grammar of partition specs, the strings that
// say how a train set is cut among peers ("iid", "dirichlet:0.5",
// "shards:2+rotate:0.5", ...): parsing and the one canonical form.
//
// It is a leaf (standard library only) because two layers must agree on
// it byte for byte: the task spec (protocol/task) stores the canonical
// form and hashes it into the task ID, which the signalling server
// computes without linking the training engine; engine/data splits a
// data set by the parsed spec.
package partition
