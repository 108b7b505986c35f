//go:build torch

// C API of the libtorch shim (shim.cpp). Plain C, so that cgo can include
// it; every function catches C++ exceptions at the boundary and reports
// them as a status code plus a message in the caller's buffer.
#ifndef PEERLEARN_GPU_SHIM_H
#define PEERLEARN_GPU_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Status codes (0 is success). The Go side maps them to sentinel errors.
enum {
	PL_OK = 0,
	PL_ERR_SHAPE = 1,     // a length or shape does not match the model
	PL_ERR_LABEL = 2,     // a label outside [0, classes)
	PL_ERR_NONFINITE = 3, // NaN or Inf in the loss, gradients or Hessian
	PL_ERR_ARCH = 4,      // an invalid layer stack
	PL_ERR_CONFIG = 5,    // an invalid option
	PL_ERR_DEVICE = 6,    // the requested device is not available
	PL_ERR_TORCH = 7      // any other exception thrown by libtorch
};

// Layer kinds: the values of nn.LayerKind.
enum {
	PL_DENSE = 1,
	PL_CONV2D = 2,
	PL_MAXPOOL2D = 3,
	PL_RELU = 4,
	PL_TANH = 5,
	PL_FLATTEN = 6,
	PL_AVGPOOL2D = 7,
	PL_GLOBALAVGPOOL = 8,
	PL_DROPOUT = 9  // training: times the caller's mask (pl_train_step); else the identity
};

typedef struct {
	int32_t kind, units, kernel, stride, pad;
} pl_layer;

// Optimiser kinds and one step's scalars. The Go side keeps the step
// count and computes Adam's bias corrections exactly as nn.Adam does.
enum { PL_SGD = 1, PL_ADAM = 2 };

typedef struct {
	int32_t kind;
	int32_t nesterov;  // SGD
	float lr;          // SGD
	float momentum;    // SGD
	float wd;          // SGD: L2; Adam: coupled L2 (0 for AdamW)
	float beta1, beta2, eps;
	float decay;       // Adam: parameters are first multiplied by it (AdamW)
	float step_size;   // Adam: lr / (1 - beta1^t)
	float bc2;         // Adam: sqrt(1 - beta2^t)
} pl_opt;

typedef struct pl_model pl_model;

// pl_create builds a model for the layer stack on inputs of h x w x c (HWC)
// with the given class count, parameters zero. device is "" or "auto"
// (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N". Returns NULL
// with a status in *code and a message in err on failure.
pl_model *pl_create(const pl_layer *layers, int32_t nlayers, int32_t h, int32_t w, int32_t c,
                    int32_t classes, const char *device, int32_t *code, char *err, int32_t errlen);
void pl_destroy(pl_model *m);

int64_t pl_num_params(pl_model *m);
// pl_device writes the model's device ("cpu", "cuda:0") into buf.
void pl_device(pl_model *m, char *buf, int32_t len);

int32_t pl_get_params(pl_model *m, float *dst, int64_t n, char *err, int32_t errlen);
int32_t pl_set_params(pl_model *m, const float *src, int64_t n, char *err, int32_t errlen);

// pl_train_step: one optimiser step on the mean cross-entropy of n samples
// x ([n][h*w*c], HWC) and labels y; *loss is the loss before the step. On
// error the parameters and the optimiser state are unchanged. masks holds,
// for each Dropout layer in order, n times its per-sample size values (0
// or 1/(1-rate), drawn by the Go side as nn's Dropout draws them); NULL
// when the model has none.
int32_t pl_train_step(pl_model *m, const float *x, const int32_t *y, int32_t n, const pl_opt *opt,
                      const float *masks, float *loss, char *err, int32_t errlen);
// pl_reset_optimizer drops momentum and moments.
void pl_reset_optimizer(pl_model *m);

// pl_evaluate: the summed cross-entropy of n samples into *loss_sum and
// each sample's predicted class (first maximum) into pred.
int32_t pl_evaluate(pl_model *m, const float *x, const int32_t *y, int32_t n, double *loss_sum,
                    int32_t *pred, char *err, int32_t errlen);

// pl_hessian_batch adds sum_i g_i^2 over n samples (g_i the gradient of
// sample i's own cross-entropy) to the model's accumulator, zeroed first
// when reset is not 0. pl_hessian_read writes accumulator * scale to dst.
int32_t pl_hessian_batch(pl_model *m, const float *x, const int32_t *y, int32_t n, int32_t reset,
                         char *err, int32_t errlen);
int32_t pl_hessian_read(pl_model *m, float *dst, int64_t n, float scale, char *err, int32_t errlen);

// pl_set_threads sets libtorch's intra-op threads (torch::set_num_threads)
// and OpenBLAS's, process-wide. pl_get_threads returns libtorch's count.
int32_t pl_set_threads(int32_t n, char *err, int32_t errlen);
int32_t pl_get_threads(void);
// pl_cuda_devices returns the number of CUDA devices libtorch can use
// (0 without CUDA support or without a GPU).
int32_t pl_cuda_devices(void);
// pl_version writes the libtorch version into buf.
void pl_version(char *buf, int32_t len);

#ifdef __cplusplus
}
#endif

#endif
