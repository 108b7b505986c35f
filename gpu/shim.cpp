//go:build torch

// The libtorch shim behind shim.h: one model = one flat float32 parameter
// tensor P in nn's layout (layers in order, weight then bias; Dense
// [out][in], Conv2D [outC][inC][kh][kw]) plus, for autograd, one leaf per
// weight and bias that shares P's storage. Gradients are taken with
// torch::autograd::grad and concatenated into a flat G of the same layout,
// so the optimisers are a few elementwise ops on P and G, written from
// nn's formulas (sgd.go, adam.go).
//
// Every exported function catches every C++ exception and returns a
// status code with the message in the caller's buffer.
//
// One translation unit on purpose: each one that includes the libtorch
// headers takes about a minute to compile.

#include "shim.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/grad_mode.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <dlfcn.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// pl_error is an error the shim raises itself, with its status code.
struct pl_error : std::runtime_error {
	int32_t code;
	pl_error(int32_t c, const std::string &msg) : std::runtime_error(msg), code(c) {}
};

void put(char *err, int32_t len, const char *msg) {
	if (err != nullptr && len > 0) {
		std::snprintf(err, static_cast<size_t>(len), "%s", msg);
	}
}

// guard runs f, turning any exception into a status code and message.
template <typename F>
int32_t guard(char *err, int32_t len, F f) {
	try {
		f();
		return PL_OK;
	} catch (const pl_error &e) {
		put(err, len, e.what());
		return e.code;
	} catch (const c10::Error &e) {
		put(err, len, e.what_without_backtrace());
		return PL_ERR_TORCH;
	} catch (const std::exception &e) {
		put(err, len, e.what());
		return PL_ERR_TORCH;
	} catch (...) {
		put(err, len, "unknown C++ exception");
		return PL_ERR_TORCH;
	}
}

struct Layer {
	int32_t kind, units, k, s, p;
	int64_t inC, inH, inW;        // input dims (CHW) of one sample
	int64_t woff, wsize, boff;    // parameter offsets (Dense, Conv2D)
	std::vector<int64_t> wshape;  // weight shape
};

// Threads set by pl_set_threads; 0 = libtorch's default.
std::atomic<int32_t> g_threads{0};

// sync_threads applies the thread count to the calling OS thread: with
// OpenMP the count is per thread, and cgo calls arrive on any thread.
void sync_threads() {
	if (g_threads.load() > 0) {
		at::init_num_threads();
	}
}

}  // namespace

struct pl_model {
	std::vector<Layer> layers;
	int64_t h = 0, w = 0, c = 0, classes = 0, in_size = 0, n = 0;
	c10::Device dev = c10::Device(c10::kCPU);
	at::Tensor P;                    // flat parameters
	std::vector<at::Tensor> leaves;  // weight, bias of each parameterised layer: views of P
	at::Tensor V, M, S;              // SGD velocity, Adam moments (undefined after reset)
	at::Tensor H;                    // Hessian-diagonal accumulator
};

namespace {

c10::Device pick_device(const char *spec) {
	std::string s = spec == nullptr ? "" : spec;
	if (s.empty() || s == "auto") {
		if (torch::cuda::is_available()) {
			return c10::Device(c10::kCUDA, 0);
		}
		return c10::Device(c10::kCPU);
	}
	c10::Device d(c10::kCPU);
	try {
		d = c10::Device(s);
	} catch (const c10::Error &) {
		throw pl_error(PL_ERR_CONFIG, "unknown device \"" + s + "\" (want auto, cpu, cuda or cuda:N)");
	}
	if (d.is_cpu()) {
		return d;
	}
	if (!d.is_cuda()) {
		throw pl_error(PL_ERR_CONFIG, "unsupported device \"" + s + "\" (want auto, cpu, cuda or cuda:N)");
	}
	if (!torch::cuda::is_available()) {
		throw pl_error(PL_ERR_DEVICE, "device \"" + s + "\": this libtorch has no usable CUDA device");
	}
	int64_t count = static_cast<int64_t>(torch::cuda::device_count());
	int64_t idx = d.has_index() ? d.index() : 0;
	if (idx >= count) {
		throw pl_error(PL_ERR_DEVICE, "device \"" + s + "\": only " + std::to_string(count) + " CUDA device(s)");
	}
	return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(idx));
}

at::TensorOptions f32(const pl_model *m) { return at::TensorOptions().dtype(at::kFloat).device(m->dev); }

// input turns n HWC samples into an NCHW tensor on the model's device.
// On the CPU with one channel it is a view of x, which is only read.
at::Tensor input(const pl_model *m, const float *x, int32_t n) {
	if (n < 1 || x == nullptr) {
		throw pl_error(PL_ERR_SHAPE, "empty batch");
	}
	at::Tensor t = at::from_blob(const_cast<float *>(x), {n, m->h, m->w, m->c}, at::kFloat);
	t = t.permute({0, 3, 1, 2}).contiguous();
	return m->dev.is_cpu() ? t : t.to(m->dev);
}

// labels checks y and returns it as int64 on the model's device.
at::Tensor labels(const pl_model *m, const int32_t *y, int32_t n) {
	for (int32_t i = 0; i < n; i++) {
		if (y[i] < 0 || y[i] >= m->classes) {
			throw pl_error(PL_ERR_LABEL, "sample " + std::to_string(i) + " has label " + std::to_string(y[i]) +
			                                 ", want 0.." + std::to_string(m->classes - 1));
		}
	}
	at::Tensor t = at::from_blob(const_cast<int32_t *>(y), {n}, at::kInt);
	return t.to(m->dev, at::kLong);
}

// forward computes the logits [n][classes]. With ins/outs it records each
// parameterised layer's input and output (for the Hessian). masks (training
// only; NULL: Dropout is the identity) holds each Dropout layer's masks.
at::Tensor forward(const pl_model *m, at::Tensor x, std::vector<at::Tensor> *ins, std::vector<at::Tensor> *outs,
                   const float *masks = nullptr) {
	const int64_t n = x.size(0);
	size_t pi = 0;
	int64_t moff = 0;
	for (const Layer &L : m->layers) {
		switch (L.kind) {
		case PL_DENSE:
			if (x.dim() != 2) {
				x = x.reshape({n, -1});
			}
			if (ins != nullptr) ins->push_back(x);
			x = at::linear(x, m->leaves[2 * pi], m->leaves[2 * pi + 1]);
			if (outs != nullptr) outs->push_back(x);
			pi++;
			break;
		case PL_CONV2D:
			x = x.reshape({n, L.inC, L.inH, L.inW});
			if (ins != nullptr) ins->push_back(x);
			x = at::conv2d(x, m->leaves[2 * pi], m->leaves[2 * pi + 1], {L.s, L.s}, {L.p, L.p});
			if (outs != nullptr) outs->push_back(x);
			pi++;
			break;
		case PL_MAXPOOL2D:
			x = at::max_pool2d(x.reshape({n, L.inC, L.inH, L.inW}), {L.k, L.k}, {L.k, L.k});
			break;
		case PL_AVGPOOL2D:
			x = at::avg_pool2d(x.reshape({n, L.inC, L.inH, L.inW}), {L.k, L.k}, {L.k, L.k});
			break;
		case PL_GLOBALAVGPOOL:
			x = x.reshape({n, L.inC, L.inH * L.inW}).mean(2);
			break;
		case PL_DROPOUT:
			if (masks != nullptr) {
				const int64_t sz = L.inC * L.inH * L.inW;
				at::Tensor mk = at::from_blob(const_cast<float *>(masks) + moff, {n, sz}, at::kFloat);
				moff += n * sz;
				x = x.reshape({n, sz}).mul(m->dev.is_cpu() ? mk : mk.to(m->dev)).reshape(x.sizes());
			}
			break;
		case PL_RELU:
			x = at::relu(x);
			break;
		case PL_TANH:
			x = at::tanh(x);
			break;
		case PL_FLATTEN:
			x = x.reshape({n, -1});
			break;
		}
	}
	return x.reshape({n, m->classes});
}

// all_finite reports whether every value of the float tensor t is finite.
// On the CPU a scan of the exponent bits: libtorch's isfinite().all() takes
// several passes and allocations, a third of an MLP step.
bool all_finite(const at::Tensor &t) {
	if (!t.device().is_cpu()) {
		return at::isfinite(t).all().item<bool>();
	}
	at::Tensor c = t.contiguous();
	const uint32_t *bits = reinterpret_cast<const uint32_t *>(c.data_ptr<float>());
	const int64_t n = c.numel();
	uint32_t bad = 0;
	for (int64_t i = 0; i < n; i++) {
		bad |= static_cast<uint32_t>((bits[i] & 0x7f800000u) == 0x7f800000u);
	}
	return bad == 0;
}

// flat_grads returns d loss / d parameters in the flat layout.
at::Tensor flat_grads(pl_model *m, const at::Tensor &loss) {
	std::vector<at::Tensor> g = torch::autograd::grad({loss}, m->leaves);
	for (auto &t : g) {
		t = t.reshape({-1});
	}
	return at::cat(g);
}

void sgd_step(pl_model *m, const at::Tensor &G, const pl_opt &o) {
	// nn.SGD: g = grad + wd·p; v = mu·v + g; p -= lr·(nesterov ? g + mu·v : v)
	at::Tensor g = o.wd != 0 ? G.add(m->P, o.wd) : G;
	if (o.momentum == 0) {
		m->P.add_(g, -o.lr);
		return;
	}
	if (!m->V.defined()) {
		m->V = at::zeros_like(m->P);
	}
	m->V.mul_(o.momentum).add_(g);
	if (o.nesterov != 0) {
		m->P.add_(g.add(m->V, o.momentum), -o.lr);
	} else {
		m->P.add_(m->V, -o.lr);
	}
}

void adam_step(pl_model *m, const at::Tensor &G, const pl_opt &o) {
	// nn.Adam: p = p·decay; g = grad + wd·p; m = β1·m + (1-β1)·g;
	// v = β2·v + (1-β2)·g²; p -= step·m/(sqrt(v)/bc2 + eps)
	if (!m->M.defined()) {
		m->M = at::zeros_like(m->P);
		m->S = at::zeros_like(m->P);
	}
	if (o.decay != 1) {
		m->P.mul_(o.decay);
	}
	at::Tensor g = o.wd != 0 ? G.add(m->P, o.wd) : G;
	m->M.mul_(o.beta1).add_(g, 1.0f - o.beta1);
	m->S.mul_(o.beta2).add_(g * g, 1.0f - o.beta2);
	at::Tensor denom = m->S.sqrt().div_(o.bc2).add_(o.eps);
	m->P.add_(m->M / denom, -o.step_size);
}

void check_model(const pl_model *m) {
	if (m == nullptr) {
		throw pl_error(PL_ERR_CONFIG, "nil model");
	}
}

}  // namespace

extern "C" {

pl_model *pl_create(const pl_layer *layers, int32_t nlayers, int32_t h, int32_t w, int32_t c, int32_t classes,
                    const char *device, int32_t *code, char *err, int32_t errlen) {
	pl_model *out = nullptr;
	int32_t rc = guard(err, errlen, [&] {
		if (layers == nullptr || nlayers < 1 || h < 1 || w < 1 || c < 1 || classes < 2) {
			throw pl_error(PL_ERR_ARCH, "empty layer stack or bad input shape / class count");
		}
		auto m = std::make_unique<pl_model>();
		m->h = h, m->w = w, m->c = c, m->classes = classes, m->in_size = int64_t(h) * w * c;
		int64_t C = c, H = h, W = w, off = 0;
		for (int32_t i = 0; i < nlayers; i++) {
			const pl_layer &s = layers[i];
			Layer L{s.kind, s.units, s.kernel, s.stride, s.pad, C, H, W, 0, 0, 0, {}};
			auto bad = [&](const std::string &why) {
				throw pl_error(PL_ERR_ARCH, "layer " + std::to_string(i) + ": " + why);
			};
			switch (s.kind) {
			case PL_DENSE: {
				if (s.units < 1) bad("dense units");
				int64_t in = C * H * W;
				L.wshape = {s.units, in};
				L.woff = off, L.wsize = s.units * in, L.boff = off + L.wsize;
				off = L.boff + s.units;
				C = s.units, H = 1, W = 1;
				break;
			}
			case PL_CONV2D: {
				if (s.units < 1 || s.kernel < 1 || s.stride < 1 || s.pad < 0 || H + 2 * s.pad < s.kernel ||
				    W + 2 * s.pad < s.kernel)
					bad("conv2d geometry");
				L.wshape = {s.units, C, s.kernel, s.kernel};
				L.woff = off, L.wsize = s.units * C * s.kernel * s.kernel, L.boff = off + L.wsize;
				off = L.boff + s.units;
				H = (H + 2 * s.pad - s.kernel) / s.stride + 1;
				W = (W + 2 * s.pad - s.kernel) / s.stride + 1;
				C = s.units;
				break;
			}
			case PL_MAXPOOL2D:
				if (s.kernel < 1 || s.stride != s.kernel || H < s.kernel || W < s.kernel) bad("maxpool2d geometry");
				H /= s.kernel, W /= s.kernel;
				break;
			case PL_AVGPOOL2D:
				if (s.kernel < 1 || s.stride != s.kernel || H < s.kernel || W < s.kernel) bad("avgpool2d geometry");
				H /= s.kernel, W /= s.kernel;
				break;
			case PL_GLOBALAVGPOOL:
				H = 1, W = 1;
				break;
			case PL_DROPOUT:
				break;
			case PL_RELU:
			case PL_TANH:
				break;
			case PL_FLATTEN:
				C = C * H * W, H = 1, W = 1;
				break;
			default:
				bad("unknown layer kind " + std::to_string(s.kind));
			}
			m->layers.push_back(L);
		}
		if (off == 0) throw pl_error(PL_ERR_ARCH, "no Dense or Conv2D layer");
		if (C * H * W != classes || H != 1 || W != 1)
			throw pl_error(PL_ERR_ARCH, "output is not " + std::to_string(classes) + " logits");
		m->n = off;
		m->dev = pick_device(device);
		sync_threads();
		m->P = at::zeros({off}, f32(m.get()));
		for (const Layer &L : m->layers) {
			if (L.kind != PL_DENSE && L.kind != PL_CONV2D) continue;
			// Leaves that share P's storage: autograd sees separate
			// parameters, the optimiser one flat tensor.
			m->leaves.push_back(m->P.narrow(0, L.woff, L.wsize).view(L.wshape).detach().requires_grad_(true));
			m->leaves.push_back(m->P.narrow(0, L.boff, L.units).detach().requires_grad_(true));
		}
		out = m.release();
	});
	if (code != nullptr) *code = rc;
	return out;
}

void pl_destroy(pl_model *m) {
	try {
		delete m;
	} catch (...) {
	}
}

int64_t pl_num_params(pl_model *m) { return m == nullptr ? 0 : m->n; }

void pl_device(pl_model *m, char *buf, int32_t len) {
	char err[8];
	int32_t rc = guard(err, sizeof err, [&] {
		check_model(m);
		put(buf, len, m->dev.str().c_str());
	});
	if (rc != PL_OK) put(buf, len, "?");
}

int32_t pl_get_params(pl_model *m, float *dst, int64_t n, char *err, int32_t errlen) {
	return guard(err, errlen, [&] {
		check_model(m);
		if (n != m->n || dst == nullptr) throw pl_error(PL_ERR_SHAPE, "destination length");
		at::NoGradGuard ng;
		at::from_blob(dst, {n}, at::kFloat).copy_(m->P);
	});
}

int32_t pl_set_params(pl_model *m, const float *src, int64_t n, char *err, int32_t errlen) {
	return guard(err, errlen, [&] {
		check_model(m);
		if (n != m->n || src == nullptr) throw pl_error(PL_ERR_SHAPE, "source length");
		at::NoGradGuard ng;
		m->P.copy_(at::from_blob(const_cast<float *>(src), {n}, at::kFloat));
	});
}

int32_t pl_train_step(pl_model *m, const float *x, const int32_t *y, int32_t n, const pl_opt *opt,
                      const float *masks, float *loss, char *err, int32_t errlen) {
	return guard(err, errlen, [&] {
		check_model(m);
		if (opt == nullptr || (opt->kind != PL_SGD && opt->kind != PL_ADAM))
			throw pl_error(PL_ERR_CONFIG, "unknown optimiser");
		sync_threads();
		at::Tensor X = input(m, x, n);
		at::Tensor Y = labels(m, y, n);
		at::Tensor logits = forward(m, X, nullptr, nullptr, masks);
		at::Tensor l = at::nll_loss(at::log_softmax(logits, 1), Y);
		float lv = l.item<float>();
		if (!std::isfinite(lv)) throw pl_error(PL_ERR_NONFINITE, "loss is " + std::to_string(lv));
		at::Tensor G = flat_grads(m, l);
		if (!all_finite(G)) throw pl_error(PL_ERR_NONFINITE, "non-finite gradient");
		at::NoGradGuard ng;
		if (opt->kind == PL_SGD) {
			sgd_step(m, G, *opt);
		} else {
			adam_step(m, G, *opt);
		}
		*loss = lv;
	});
}

void pl_reset_optimizer(pl_model *m) {
	if (m == nullptr) return;
	m->V = at::Tensor();
	m->M = at::Tensor();
	m->S = at::Tensor();
}

int32_t pl_evaluate(pl_model *m, const float *x, const int32_t *y, int32_t n, double *loss_sum, int32_t *pred,
                    char *err, int32_t errlen) {
	return guard(err, errlen, [&] {
		check_model(m);
		sync_threads();
		at::NoGradGuard ng;
		at::Tensor X = input(m, x, n);
		at::Tensor Y = labels(m, y, n);
		at::Tensor logits = forward(m, X, nullptr, nullptr);
		at::Tensor per = at::nll_loss(at::log_softmax(logits, 1), Y, {}, at::Reduction::None);
		double s = per.to(at::kDouble).sum().item<double>();
		if (!std::isfinite(s)) throw pl_error(PL_ERR_NONFINITE, "loss is " + std::to_string(s));
		at::Tensor p = logits.argmax(1).to(at::kCPU, at::kInt).contiguous();
		std::memcpy(pred, p.data_ptr<int32_t>(), sizeof(int32_t) * static_cast<size_t>(n));
		*loss_sum = s;
	});
}

int32_t pl_hessian_batch(pl_model *m, const float *x, const int32_t *y, int32_t n, int32_t reset, char *err,
                         int32_t errlen) {
	return guard(err, errlen, [&] {
		check_model(m);
		sync_threads();
		at::Tensor X = input(m, x, n);
		at::Tensor Y = labels(m, y, n);
		std::vector<at::Tensor> ins, outs;
		at::Tensor logits = forward(m, X, &ins, &outs);
		// Summed, not averaged: dy is each sample's own gradient.
		at::Tensor l = at::nll_loss(at::log_softmax(logits, 1), Y, {}, at::Reduction::Sum);
		std::vector<at::Tensor> dys = torch::autograd::grad({l}, outs);
		at::NoGradGuard ng;
		if (reset != 0 || !m->H.defined()) {
			m->H = at::zeros_like(m->P);
		}
		size_t pi = 0;
		for (const Layer &L : m->layers) {
			if (L.kind != PL_DENSE && L.kind != PL_CONV2D) continue;
			const at::Tensor &xin = ins[pi], &dy = dys[pi];
			at::Tensor hw, hb;
			if (L.kind == PL_DENSE) {
				// sum_i (dy_i ⊗ x_i)² = (dy∘dy)ᵀ·(x∘x)
				at::Tensor dy2 = dy * dy;
				hw = dy2.t().mm(xin * xin);
				hb = dy2.sum(0);
			} else {
				// per-sample weight gradient: dy_i [outC][P] · cols_iᵀ [P][K]
				at::Tensor cols = at::im2col(xin, {L.k, L.k}, {1, 1}, {L.p, L.p}, {L.s, L.s});
				at::Tensor d = dy.reshape({n, L.units, -1});
				at::Tensor g = at::bmm(d, cols.transpose(1, 2));
				hw = (g * g).sum(0);
				at::Tensor gb = d.sum(2);
				hb = (gb * gb).sum(0);
			}
			m->H.narrow(0, L.woff, L.wsize).add_(hw.reshape({-1}));
			m->H.narrow(0, L.boff, L.units).add_(hb);
			pi++;
		}
	});
}

int32_t pl_hessian_read(pl_model *m, float *dst, int64_t n, float scale, char *err, int32_t errlen) {
	return guard(err, errlen, [&] {
		check_model(m);
		if (n != m->n || dst == nullptr) throw pl_error(PL_ERR_SHAPE, "destination length");
		if (!m->H.defined()) throw pl_error(PL_ERR_CONFIG, "no Hessian batch accumulated");
		at::NoGradGuard ng;
		at::Tensor h = m->H * scale;
		if (!all_finite(h)) throw pl_error(PL_ERR_NONFINITE, "non-finite Hessian diagonal");
		at::from_blob(dst, {n}, at::kFloat).copy_(h);
	});
}

int32_t pl_set_threads(int32_t n, char *err, int32_t errlen) {
	return guard(err, errlen, [&] {
		if (n < 1) throw pl_error(PL_ERR_CONFIG, "thread count " + std::to_string(n));
		at::set_num_threads(n);
		g_threads.store(n);
		// libtorch does not tell OpenBLAS (it would MKL); OpenBLAS's
		// count is process-wide.
		using setter = void (*)(int);
		if (auto f = reinterpret_cast<setter>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
			f(n);
		}
	});
}

int32_t pl_get_threads(void) {
	try {
		sync_threads();
		return at::get_num_threads();
	} catch (...) {
		return 0;
	}
}

int32_t pl_cuda_devices(void) {
	try {
		return torch::cuda::is_available() ? static_cast<int32_t>(torch::cuda::device_count()) : 0;
	} catch (...) {
		return 0;
	}
}

void pl_version(char *buf, int32_t len) {
	char v[32];
	std::snprintf(v, sizeof v, "%d.%d.%d", TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH);
	put(buf, len, v);
}

}  // extern "C"
