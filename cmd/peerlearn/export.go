package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/peerlearn/peerlearn/engine/export"
	"github.com/peerlearn/peerlearn/engine/nn"
)

func init() {
	register(&command{
		name:    "export",
		summary: "write a saved model (.plnn) as safetensors (PyTorch state_dict names) or ONNX (opset 13)",
		run:     runExport,
	})
}

// exportFormats maps -format to its encoder.
var exportFormats = map[string]func(nn.Arch, []float32) ([]byte, error){
	"safetensors": export.Safetensors,
	"onnx":        export.ONNX,
}

// runExport reads a model in the engine's encoding and writes it in a
// standard format, ending with one line:
//
//	export format=onnx arch=mlp params=101770 bytes=408123 out=model.onnx
//
// A .plnn names its architecture and the checksum of its layout but not
// its layers, so the architecture must be a built-in one; -input and
// -classes give the shape it was trained for, and the checksum confirms it.
func runExport(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("export")
	model := fs.String("model", "", "the model to export, in the engine's encoding (.plnn: `peerlearn train -save`, the page's download)")
	format := fs.String("format", "", "output format: safetensors or onnx")
	out := fs.String("o", "", "output file")
	input := fs.String("input", "28x28x1", "sample shape HxWxC the model was built for")
	classes := fs.Int("classes", 10, "number of classes the model was built for")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	encode, ok := exportFormats[*format]
	if !ok {
		return fmt.Errorf("%w: -format %q: want safetensors or onnx", errUsage, *format)
	}
	if *model == "" || *out == "" {
		return fmt.Errorf("%w: -model and -o are required", errUsage)
	}
	if *model == *out {
		return fmt.Errorf("%w: -o %s would overwrite -model", errUsage, *out)
	}
	var shape [3]int
	if n, err := fmt.Sscanf(*input, "%dx%dx%d", &shape[0], &shape[1], &shape[2]); err != nil || n != 3 {
		return fmt.Errorf("%w: -input %q: want HxWxC, e.g. 28x28x1", errUsage, *input)
	}
	b, err := os.ReadFile(*model)
	if err != nil {
		return err
	}
	h, params, err := nn.Decode(b)
	if err != nil {
		return fmt.Errorf("-model %s: %w", *model, err)
	}
	a, err := nn.ArchFor(h.Arch, shape, *classes)
	if err != nil {
		return fmt.Errorf("-model %s: %w (only built-in architectures can be exported from a .plnn, which does not list its layers)", *model, err)
	}
	if sum, _ := a.ShapeChecksum(); sum != h.ShapeChecksum {
		return fmt.Errorf("-model %s: %w: layout checksum %016x, %s has %016x: give the -input and -classes it was built for",
			*model, nn.ErrMismatch, h.ShapeChecksum, a, sum)
	}
	return writeExport(stdout, *format, *out, a, params, encode)
}

// writeExport writes params of architecture a in the chosen format to out
// and prints the command's result line.
func writeExport(stdout io.Writer, format, out string, a nn.Arch, params []float32, encode func(nn.Arch, []float32) ([]byte, error)) error {
	enc, err := encode(a, params)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, enc, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "export format=%s arch=%s params=%d bytes=%d out=%s\n", format, a.Name, len(params), len(enc), out)
	return nil
}
