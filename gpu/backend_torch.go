//go:build torch

package gpu

/*
#cgo CXXFLAGS: -std=c++17 -O2 -I/usr/include/torch/csrc/api/include -D_GLIBCXX_USE_CXX11_ABI=1
#cgo LDFLAGS: -ltorch -ltorch_cpu -lc10
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"unsafe"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
)

// errLen is the size of the buffer the shim writes messages into.
const errLen = 512

// handle owns the C model; the cleanup registered by New frees it when a
// Backend is dropped without Close.
type handle struct{ p *C.pl_model }

// Backend is an nn.Backend on libtorch (CPU or CUDA). Like every Backend
// it is not safe for concurrent use: one goroutine makes every call.
// Close frees the libtorch model; a Backend that is dropped without Close
// is freed by the garbage collector.
type Backend struct {
	h         *handle
	cleanup   runtime.Cleanup
	arch      nn.Arch
	n         int
	inSize    int
	opt       optimizer
	evalBatch int
	device    string
	yield     func()
	pred      []int32
	drop      dropout
}

var _ nn.Backend = (*Backend)(nil)

// Available reports whether the package was built with libtorch (the
// torch tag).
func Available() bool { return true }

// CUDADevices returns the number of CUDA devices the linked libtorch can
// use: 0 for a CPU-only libtorch or a machine without a GPU.
func CUDADevices() int { return int(C.pl_cuda_devices()) }

// Version returns the linked libtorch's version.
func Version() string {
	var buf [32]C.char
	C.pl_version(&buf[0], C.int32_t(len(buf)))
	return C.GoString(&buf[0])
}

// New returns a libtorch backend for arch, all parameters zero (call
// SetParams, typically with an nn.Model's initial parameters), training
// with a snapshot of opt's hyperparameters (*nn.SGD or *nn.Adam, AdamW
// being an Adam with Decoupled); the optimiser state lives in libtorch.
func New(arch nn.Arch, opt nn.Optimizer, cfg Config) (*Backend, error) {
	layout, err := arch.Layout() // nn's own validation of the layer stack
	if err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	o, err := newOptimizer(opt)
	if err != nil {
		return nil, err
	}
	var errbuf [errLen]C.char
	if cfg.Threads > 0 {
		if rc := C.pl_set_threads(C.int32_t(cfg.Threads), &errbuf[0], errLen); rc != C.PL_OK {
			return nil, codeErr(rc, &errbuf[0], "threads")
		}
	}
	layers := make([]C.pl_layer, len(arch.Layers))
	for i, l := range arch.Layers {
		layers[i] = C.pl_layer{kind: C.int32_t(l.Kind), units: C.int32_t(l.Units),
			kernel: C.int32_t(l.Kernel), stride: C.int32_t(l.Stride), pad: C.int32_t(l.Pad)}
	}
	dev := C.CString(cfg.Device)
	defer C.free(unsafe.Pointer(dev))
	var code C.int32_t
	p := C.pl_create(&layers[0], C.int32_t(len(layers)), C.int32_t(arch.Input[0]), C.int32_t(arch.Input[1]),
		C.int32_t(arch.Input[2]), C.int32_t(arch.Classes), dev, &code, &errbuf[0], errLen)
	if p == nil {
		return nil, codeErr(code, &errbuf[0], "create "+arch.Name)
	}
	last := layout[len(layout)-1]
	want := last.Offset + last.Size()
	if got := int(C.pl_num_params(p)); got != want {
		C.pl_destroy(p)
		return nil, fmt.Errorf("%w: %s: libtorch model has %d parameters, nn's layout %d", ErrTorch, arch.Name, got, want)
	}
	var devbuf [64]C.char
	C.pl_device(p, &devbuf[0], C.int32_t(len(devbuf)))
	arch.Layers = slices.Clone(arch.Layers)
	b := &Backend{
		h:         &handle{p: p},
		arch:      arch,
		n:         want,
		inSize:    arch.Input[0] * arch.Input[1] * arch.Input[2],
		opt:       o,
		evalBatch: cfg.EvalBatch,
		device:    C.GoString(&devbuf[0]),
	}
	if b.evalBatch == 0 {
		b.evalBatch = DefaultEvalBatch
	}
	if b.drop, err = newDropout(arch); err != nil {
		C.pl_destroy(p)
		return nil, err
	}
	if len(b.drop.layers) > 0 {
		b.drop.rng = rand.New(rand.NewPCG(cfg.DropoutSeed, dropoutStream))
	}
	b.cleanup = runtime.AddCleanup(b, func(h *handle) {
		if h.p != nil {
			C.pl_destroy(h.p)
			h.p = nil
		}
	}, b.h)
	return b, nil
}

// codeErr maps a shim status to an error wrapping the matching sentinel.
func codeErr(code C.int32_t, msg *C.char, what string) error {
	text := C.GoString(msg)
	var sentinel error
	switch code {
	case C.PL_ERR_SHAPE:
		sentinel = nn.ErrShape
	case C.PL_ERR_LABEL:
		sentinel = nn.ErrLabel
	case C.PL_ERR_NONFINITE:
		sentinel = nn.ErrNonFinite
	case C.PL_ERR_ARCH:
		sentinel = nn.ErrArch
	case C.PL_ERR_CONFIG:
		sentinel = nn.ErrConfig
	case C.PL_ERR_DEVICE:
		sentinel = ErrDevice
	default:
		sentinel = ErrTorch
	}
	return fmt.Errorf("%w: %s: %s", sentinel, what, text)
}

// model returns the C model, or ErrClosed.
func (b *Backend) model() (*C.pl_model, error) {
	if b == nil || b.h == nil || b.h.p == nil {
		return nil, ErrClosed
	}
	return b.h.p, nil
}

// Close frees the libtorch model. Later calls return ErrClosed; Close
// itself may be called again.
func (b *Backend) Close() error {
	if b == nil || b.h == nil || b.h.p == nil {
		return nil
	}
	b.cleanup.Stop()
	C.pl_destroy(b.h.p)
	b.h.p = nil
	return nil
}

// Device returns the device the model lives on, e.g. "cpu" or "cuda:0".
func (b *Backend) Device() string { return b.device }

// String names the backend and its device, e.g. "libtorch/cpu", for
// status pages and logs.
func (b *Backend) String() string { return "libtorch/" + b.device }

// Arch implements nn.Backend.
func (b *Backend) Arch() nn.Arch {
	a := b.arch
	a.Layers = slices.Clone(a.Layers)
	return a
}

// NumParams implements nn.Backend.
func (b *Backend) NumParams() int { return b.n }

// SetYield implements nn.Backend.
func (b *Backend) SetYield(yield func()) { b.yield = yield }

// ResetOptimizer implements nn.Backend.
func (b *Backend) ResetOptimizer() {
	b.opt.reset()
	if p, err := b.model(); err == nil {
		C.pl_reset_optimizer(p)
		runtime.KeepAlive(b)
	}
}

// Params implements nn.Backend.
func (b *Backend) Params(dst []float32) error {
	p, err := b.model()
	if err != nil {
		return err
	}
	if len(dst) != b.n {
		return fmt.Errorf("%w: destination has %d values, model %d parameters", nn.ErrShape, len(dst), b.n)
	}
	var errbuf [errLen]C.char
	rc := C.pl_get_params(p, (*C.float)(unsafe.Pointer(&dst[0])), C.int64_t(b.n), &errbuf[0], errLen)
	runtime.KeepAlive(b)
	if rc != C.PL_OK {
		return codeErr(rc, &errbuf[0], "params")
	}
	return nil
}

// SetParams implements nn.Backend.
func (b *Backend) SetParams(src []float32) error {
	p, err := b.model()
	if err != nil {
		return err
	}
	if len(src) != b.n {
		return fmt.Errorf("%w: %d parameters for %s, which has %d", nn.ErrShape, len(src), b.arch.Name, b.n)
	}
	if i := f32.FirstNonFinite(src); i >= 0 {
		return fmt.Errorf("%w: parameter %d is %v", nn.ErrNonFinite, i, src[i])
	}
	var errbuf [errLen]C.char
	rc := C.pl_set_params(p, (*C.float)(unsafe.Pointer(&src[0])), C.int64_t(b.n), &errbuf[0], errLen)
	runtime.KeepAlive(b)
	if rc != C.PL_OK {
		return codeErr(rc, &errbuf[0], "set params")
	}
	return nil
}

// TrainBatch implements nn.Backend.
func (b *Backend) TrainBatch(x []float32, y []int32) (float32, error) {
	p, err := b.model()
	if err != nil {
		return 0, err
	}
	if err := checkBatch(x, y, b.inSize, b.arch.Classes); err != nil {
		return 0, err
	}
	s, commit := b.opt.next()
	o := C.pl_opt{
		kind: C.int32_t(C.PL_SGD), lr: C.float(s.lr), momentum: C.float(s.momentum), wd: C.float(s.wd),
		beta1: C.float(s.beta1), beta2: C.float(s.beta2), eps: C.float(s.eps),
		decay: C.float(s.decay), step_size: C.float(s.stepSize), bc2: C.float(s.bc2),
	}
	if s.kind == optAdam {
		o.kind = C.PL_ADAM
	}
	if s.nesterov {
		o.nesterov = 1
	}
	masks, err := b.drop.masks(len(y))
	if err != nil {
		return 0, err
	}
	var mp *C.float
	if len(masks) > 0 {
		mp = (*C.float)(unsafe.Pointer(&masks[0]))
	}
	var loss C.float
	var errbuf [errLen]C.char
	rc := C.pl_train_step(p, (*C.float)(unsafe.Pointer(&x[0])), (*C.int32_t)(unsafe.Pointer(&y[0])),
		C.int32_t(len(y)), &o, mp, &loss, &errbuf[0], errLen)
	runtime.KeepAlive(b)
	if rc != C.PL_OK {
		return 0, codeErr(rc, &errbuf[0], "train step")
	}
	commit()
	return float32(loss), nil
}

// Evaluate implements nn.Backend, in batches of Config.EvalBatch.
func (b *Backend) Evaluate(x []float32, y []int32) (nn.Metrics, error) {
	p, err := b.model()
	if err != nil {
		return nn.Metrics{}, err
	}
	if err := b.checkLarge(x, y); err != nil {
		return nn.Metrics{}, err
	}
	n, k := len(y), b.arch.Classes
	r := nn.Metrics{Samples: n, Correct: make([]int, k), Total: make([]int, k)}
	if cap(b.pred) < min(n, b.evalBatch) {
		b.pred = make([]int32, min(n, b.evalBatch))
	}
	var lossSum float64
	correct := 0
	var errbuf [errLen]C.char
	for lo := 0; lo < n; lo += b.evalBatch {
		if lo > 0 && b.yield != nil {
			b.yield()
		}
		hi := min(lo+b.evalBatch, n)
		pred := b.pred[:hi-lo]
		var s C.double
		rc := C.pl_evaluate(p, (*C.float)(unsafe.Pointer(&x[lo*b.inSize])), (*C.int32_t)(unsafe.Pointer(&y[lo])),
			C.int32_t(hi-lo), &s, (*C.int32_t)(unsafe.Pointer(&pred[0])), &errbuf[0], errLen)
		runtime.KeepAlive(b)
		if rc != C.PL_OK {
			return nn.Metrics{}, codeErr(rc, &errbuf[0], fmt.Sprintf("evaluate samples %d..%d", lo, hi-1))
		}
		lossSum += float64(s)
		for i, label := range y[lo:hi] {
			r.Total[label]++
			if pred[i] == label {
				r.Correct[label]++
				correct++
			}
		}
	}
	r.Loss = lossSum / float64(n)
	r.Accuracy = float64(correct) / float64(n)
	return r, nil
}

// HessianDiag implements nn.Backend, in batches of Config.EvalBatch.
func (b *Backend) HessianDiag(x []float32, y []int32, dst []float32) error {
	p, err := b.model()
	if err != nil {
		return err
	}
	if len(dst) != b.n {
		return fmt.Errorf("%w: destination has %d values, model %d parameters", nn.ErrShape, len(dst), b.n)
	}
	if err := b.checkLarge(x, y); err != nil {
		return err
	}
	n := len(y)
	var errbuf [errLen]C.char
	for lo := 0; lo < n; lo += b.evalBatch {
		if lo > 0 && b.yield != nil {
			b.yield()
		}
		hi := min(lo+b.evalBatch, n)
		reset := C.int32_t(0)
		if lo == 0 {
			reset = 1
		}
		rc := C.pl_hessian_batch(p, (*C.float)(unsafe.Pointer(&x[lo*b.inSize])), (*C.int32_t)(unsafe.Pointer(&y[lo])),
			C.int32_t(hi-lo), reset, &errbuf[0], errLen)
		runtime.KeepAlive(b)
		if rc != C.PL_OK {
			return codeErr(rc, &errbuf[0], fmt.Sprintf("Hessian samples %d..%d", lo, hi-1))
		}
	}
	rc := C.pl_hessian_read(p, (*C.float)(unsafe.Pointer(&dst[0])), C.int64_t(b.n), C.float(1/float32(n)), &errbuf[0], errLen)
	runtime.KeepAlive(b)
	if rc != C.PL_OK {
		return codeErr(rc, &errbuf[0], "Hessian")
	}
	return nil
}

// checkLarge validates a multi-batch call's inputs (any number of samples).
func (b *Backend) checkLarge(x []float32, y []int32) error {
	n := len(y)
	if n < 1 {
		return fmt.Errorf("%w: empty batch", nn.ErrShape)
	}
	if len(x) != n*b.inSize {
		return fmt.Errorf("%w: %d input values for %d samples of %d features", nn.ErrShape, len(x), n, b.inSize)
	}
	for lo := 0; lo < n; lo += maxBatch {
		hi := min(lo+maxBatch, n)
		if err := checkBatch(x[lo*b.inSize:hi*b.inSize], y[lo:hi], b.inSize, b.arch.Classes); err != nil {
			if lo > 0 {
				return fmt.Errorf("from sample %d: %w", lo, err)
			}
			return err
		}
	}
	return nil
}

// Threads returns libtorch's intra-op thread count.
func Threads() int { return int(C.pl_get_threads()) }

// SetDropoutSource sets the generator the model's Dropout layers draw
// their training masks from (as nn.Model.SetDropoutSource: the same
// generator state gives the same masks there and here), replacing the one
// New seeded from Config.DropoutSeed. nil leaves a model with Dropout
// unable to train (ErrConfig).
func (b *Backend) SetDropoutSource(rng *rand.Rand) { b.drop.rng = rng }
