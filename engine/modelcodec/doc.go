// Package modelcodec encodes a model's flat float32 parameters for the
// wire in fewer bytes: fp16, int8 with a scale per block, and deltas
// against the last model the receiver acknowledged, quantised to int8
// blocks or sparsified to the largest entries (top-k), with error
// feedback as in ChocoSGD: the sender keeps the receiver's copy x̂ and
// sends Q(x - x̂), so what one message left out is still in the next
// message's delta.
//
// Both ends agree on x̂ through digests (nn.Fingerprint of the
// reconstruction). A delta names the digest of the reference it was
// computed against; a receiver that does not hold that reference refuses
// it (ErrUnknownReference) and the sender falls back to a full model.
// Sender and receiver compute a reconstruction with one function
// (Decode), whose float32 operations are rounded one by one (explicit
// conversions, never fused), so the two copies are bit-identical on every
// platform.
//
// Decode is the trust boundary: it accepts exactly what Encode produces
// and refuses a length that disagrees with the expected parameter count,
// a non-finite or oversized scale or value, an index out of range or out
// of order, and trailing bytes, each with a sentinel error.
//
// The package is pure: no goroutines, clocks or I/O.
package modelcodec
