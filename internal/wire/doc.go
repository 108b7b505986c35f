// Package wire holds the byte-level helpers PeerLearn's binary codecs
// share: a Writer that appends big-endian fields to a buffer and a
// bounds-checked Reader with a sticky error. It does no I/O and knows no
// message format; each codec keeps its own layout and error values.
package wire
