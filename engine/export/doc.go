// Package export writes a PeerLearn model (an nn.Arch and its flat
// []float32 parameters) in the formats other tools read, and reads one
// back:
//
//   - safetensors (Hugging Face's format: an 8-byte little-endian header
//     length, a JSON header, raw little-endian tensors), named as the
//     state_dict of the equivalent torch.nn.Sequential ("0.weight",
//     "0.bias", ...; see Sequential). ReadSafetensors loads such a file as
//     the parameters of a given architecture, with strict checks of names,
//     shapes, dtype, offsets and values; Decode parses any safetensors file.
//   - ONNX (opset 13): a graph of Conv, MaxPool, AveragePool,
//     GlobalAveragePool, Relu, Tanh, Flatten, Reshape, Gemm and Identity
//     (Dropout, which does nothing at inference) nodes with the
//     parameters as initializers, input
//     "input" (float32, NCHW, batch dimension "N") and output "logits"
//     ([N, classes]). The protobuf is written by hand with protowire.
//
// The engine's layout already is PyTorch's (nn.Linear.weight [out][in],
// nn.Conv2d.weight [out][in][kh][kw], activations CHW; see nn.Tensor), so
// no tensor is transposed; only the input differs: the engine reads
// samples as HWC, the exported models as NCHW (NCHW converts).
//
// The package does no I/O and runs under GOOS=js too.
package export
