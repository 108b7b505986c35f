// Package nn is PeerLearn's pure-Go neural-network engine: feed-forward
// models (Dense, Conv2D, MaxPool2D, AvgPool2D, GlobalAvgPool, Dropout,
// ReLU, Tanh, Flatten) trained with
// softmax cross-entropy, SGD/Adam/AdamW, He/Glorot initialisation with
// per-layer gains, batched evaluation, a Hessian-diagonal estimate for
// DecHW, and a versioned, checksummed parameter encoding.
//
// Every model keeps all its parameters in one flat []float32 (Model.Params)
// and its gradients in another of the same layout (see Tensor for the
// layout rule), so averaging, sending or fingerprinting a model is one
// slice operation. Architectures are built by name (NewArch: "mlp",
// "fedlay-mlp", "mlp3", "dechw-cnn", "small-cnn") or from LayerSpecs; a
// name plus Arch.ShapeChecksum identifies a parameter layout.
//
// Heavy math goes through internal/f32 (GEMM for Dense and for Conv2D via
// im2col). Results are deterministic: the same seed gives the same bits
// on every run and thread count, and, with f32's pure-Go kernels, natively
// and under GOOS=js or wasip1 (exp, log and tanh come from internal/detmath,
// pure-Go ports that give the same bits everywhere). Randomness comes only from a caller's *rand.Rand
// (Dropout's masks from Init's generator or SetDropoutSource's).
//
// The package does no I/O, so it runs in the browser (GOOS=js); Backend's
// SetYield lets a single-threaded host breathe between batches.
package nn
