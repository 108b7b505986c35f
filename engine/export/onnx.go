package export

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// ONNX opset and IR version of the exported models: opset 13 (IR 7) has
// every operator used here in its current form and runs on any ONNX
// Runtime since 1.7.
const (
	ONNXOpset     = 13
	onnxIRVersion = 7
)

// The graph's input and output names.
const (
	ONNXInput  = "input"
	ONNXOutput = "logits"
)

// ONNX encodes params, the flat parameters of a, as an ONNX model: one
// node per module of Sequential(a) (Linear as Gemm with transB, Conv2d as
// Conv, MaxPool2d as MaxPool, AvgPool2d as AveragePool,
// AdaptiveAvgPool2d as GlobalAveragePool, Dropout as Identity (an
// exported model is for inference, where dropout does nothing), Flatten
// with axis 1, Unflatten as Reshape),
// the parameters as initializers under their state_dict names, input
// "input" [N, C, H, W] and output "logits" [N, classes], float32.
func ONNX(a nn.Arch, params []float32) ([]byte, error) {
	p, err := newPlan(a)
	if err != nil {
		return nil, err
	}
	if err := p.check(params); err != nil {
		return nil, err
	}
	g := pb(nil).str(graphName, a.Name)
	byName := make(map[string]Param, len(p.params))
	for _, t := range p.params {
		byName[t.Name] = t
		g = g.msg(graphInitializer, floatTensor(t.Name, t.Shape, params[t.Offset:t.Offset+t.size()]))
	}
	x := ONNXInput
	for j, m := range p.modules {
		name := fmt.Sprintf("%d", j)
		out := fmt.Sprintf("%d.out", j)
		if j == len(p.modules)-1 {
			out = ONNXOutput
		}
		w, b := name+".weight", name+".bias"
		if _, ok := byName[w]; (m.Type == "Linear" || m.Type == "Conv2d") && !ok {
			return nil, fmt.Errorf("%w: module %d %v has no tensor %s", nn.ErrArch, j, m, w)
		}
		var n pb
		switch m.Type {
		case "Linear":
			n = node(name, "Gemm", []string{x, w, b}, out, attrInt("transB", 1))
		case "Conv2d":
			k, s, pad := int64(m.Kernel), int64(m.Stride), int64(m.Padding)
			n = node(name, "Conv", []string{x, w, b}, out,
				attrIntList("kernel_shape", k, k), attrIntList("strides", s, s), attrIntList("pads", pad, pad, pad, pad))
		case "MaxPool2d":
			k, s := int64(m.Kernel), int64(m.Stride)
			n = node(name, "MaxPool", []string{x}, out, attrIntList("kernel_shape", k, k), attrIntList("strides", s, s))
		case "AvgPool2d":
			k, s := int64(m.Kernel), int64(m.Stride)
			n = node(name, "AveragePool", []string{x}, out, attrIntList("kernel_shape", k, k), attrIntList("strides", s, s))
		case "AdaptiveAvgPool2d":
			n = node(name, "GlobalAveragePool", []string{x}, out)
		case "Dropout":
			n = node(name, "Identity", []string{x}, out)
		case "ReLU":
			n = node(name, "Relu", []string{x}, out)
		case "Tanh":
			n = node(name, "Tanh", []string{x}, out)
		case "Flatten":
			n = node(name, "Flatten", []string{x}, out, attrInt("axis", 1))
		case "Unflatten":
			shape := name + ".shape"
			g = g.msg(graphInitializer, int64Tensor(shape, -1, int64(m.Shape[0]), int64(m.Shape[1]), int64(m.Shape[2])))
			n = node(name, "Reshape", []string{x, shape}, out)
		default:
			return nil, fmt.Errorf("%w: module %d %v has no ONNX operator here", nn.ErrArch, j, m)
		}
		g = g.msg(graphNode, n)
		x = out
	}
	g = g.msg(graphInput, floatValueInfo(ONNXInput, -1, p.in.C, p.in.H, p.in.W))
	g = g.msg(graphOutput, floatValueInfo(ONNXOutput, -1, a.Classes))

	m := pb(nil).int(modelIRVersion, onnxIRVersion).
		str(modelProducerName, "peerlearn").str(modelProducerVer, "1").
		str(modelDocString, a.String()).
		msg(modelGraph, g).
		msg(modelOpsetImport, pb(nil).str(opsetDomain, "").int(opsetVersion, ONNXOpset)).
		msg(modelMetadataProps, pb(nil).str(entryKey, MetaArch).str(entryValue, a.String()))
	return m, nil
}
