// Package ident is PeerLearn's one vocabulary for identities: the peer ID
// every layer names a peer by (overlay routing tables, model headers,
// signalling messages, aggregation inputs) and the task ID that names a
// learning task. It is a leaf: it imports only the standard library, so
// the engine, the protocol cores, the signalling server and the peer
// runtime all share these types without converting between copies.
package ident
