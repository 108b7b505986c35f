// Package wire holds the byte-level helpers PeerLearn's binary codecs
// share: a Writer that appends big-endian fields to a buffer and a
// bounds-checked Reader with a sticky error, and Names, the name table of
// a one-byte wire enum (every MsgType's String). It does no I/O and knows
// no message format; each codec keeps its own layout and error values
// (internal/modelwire holds the model header the model protocols share).
// Subpackage wiretest has the round-trip, canonical-form and truncation
// checks the codec tests share.
package wire
