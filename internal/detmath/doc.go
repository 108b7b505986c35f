// Package detmath holds the few float64 functions whose results must be
// bit-identical on every platform PeerLearn runs on: Log, Exp, Tanh and a
// normal sampler built on them.
//
// Go's math.Log and math.Exp have amd64 assembly that may differ from the
// pure-Go code in the last bit, while GOOS=js builds run the pure-Go code.
// Data partitions (engine/data) and everything that feeds a model's loss,
// activations and initial weights (engine/nn) use the ports here instead
// (of Go's pure-Go math.log, math.exp and math.tanh, themselves from
// FreeBSD's msun and Cephes), so a seeded run gives the same bits natively
// and in the browser. They use only +, -, *, /, sqrt (correctly rounded
// everywhere) and exact bit manipulation, and wrap every product that
// feeds an addition in float64(...): the Go spec says an explicit
// conversion rounds, which stops compilers on FMA targets from fusing a
// multiply-add and changing the last bit.
package detmath
