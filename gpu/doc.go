// Package gpu is the GPU companion's training backend: a cgo shim over
// libtorch's C++ API (shim.h, shim.cpp) behind the build tag `torch`,
// implementing nn.Backend with nn's flat parameter layout byte for byte,
// so a companion's models average with browser and pure-Go peers'.
//
// Built with -tags torch (Debian libtorch-dev, or an official libtorch
// through CGO_CXXFLAGS / CGO_LDFLAGS, see the README), New returns a
// *Backend on the CPU or, when the linked libtorch has CUDA and a GPU is
// present, on the GPU. Without the tag the package is plain Go (it builds
// for GOOS=js): Available reports false and New returns ErrNotBuilt.
//
// # Numerics
//
// The model is one flat float32 parameter tensor in nn's layout (layers in
// order, weight then bias; Dense [out][in]; Conv2D [outC][inC][kh][kw];
// HWC inputs reordered to CHW; Flatten in CHW order); autograd sees one
// leaf per weight and bias sharing its storage. The optimisers are written
// from nn.SGD's and nn.Adam's formulas on the flat parameter and gradient
// tensors, with Adam's bias corrections computed in Go exactly as nn does,
// so from the same parameters and batches both engines agree to float32
// rounding (the tests ask for 1e-4 on losses and 1e-5 on parameters after
// five steps). Dropout's masks are drawn in Go as nn draws them (from
// Config.DropoutSeed or SetDropoutSource) and libtorch multiplies by them,
// so with generators in the same state both engines drop the same values. HessianDiag is nn's estimate, the mean over samples of each
// sample's own gradient squared, computed in closed form per layer (Dense:
// (dy∘dy)ᵀ(x∘x); Conv2D: per-sample im2col products).
//
// # Errors
//
// Bad input is refused in Go before any C call, with nn's sentinels
// (nn.ErrShape, nn.ErrLabel, nn.ErrNonFinite, nn.ErrArch, nn.ErrConfig),
// so callers test errors the same way for every backend. Failures inside
// libtorch are C++ exceptions caught at the C boundary and returned as
// ErrTorch; an unavailable device is ErrDevice; a closed Backend ErrClosed.
// A failed TrainBatch leaves parameters and optimiser state unchanged.
//
// # Peers on libtorch
//
// Factory returns New in the shape of a peer's training hook,
// func(nn.Arch, nn.Optimizer) (nn.Backend, error): a peer keeps its
// nn.Model as the parameter store (initialisation, aggregation,
// publishing) and, around each round's local training, copies the
// parameters into the backend (SetParams) and back (Params). Such a peer's
// models average with pure-Go and browser peers' as they are.
//
// # Threads and devices
//
// Config.Threads sets libtorch's intra-op threads (torch::set_num_threads)
// and OpenBLAS's; both are process-wide, so the last New with Threads > 0
// wins. Config.Device is "" or "auto" (CUDA when the linked libtorch has it
// and a device is present, else CPU), "cpu", "cuda" or "cuda:N".
package gpu
