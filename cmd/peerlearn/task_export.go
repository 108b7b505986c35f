package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/protocol/task/taskarch"
)

func init() {
	register(&command{
		name:    "task export",
		summary: "write a task's saved model (.plnn) as safetensors or ONNX, its architecture taken from the spec (declared models too)",
		run:     runTaskExport,
	})
}

// runTaskExport is `peerlearn export` for any model a spec can declare: a
// .plnn names its architecture but does not list its layers, so the spec
// gives them (taskarch.Arch) and the layout checksum confirms the model
// is that spec's. It ends with the line `peerlearn export` prints.
func runTaskExport(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("task export")
	specFile := fs.String("spec", "", "the task's spec file (one spec)")
	model := fs.String("model", "", "the model to export (.plnn)")
	format := fs.String("format", "", "output format: safetensors or onnx")
	out := fs.String("o", "", "output file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	encode, ok := exportFormats[*format]
	if !ok {
		return fmt.Errorf("%w: -format %q: want safetensors or onnx", errUsage, *format)
	}
	if *specFile == "" || *model == "" || *out == "" {
		return fmt.Errorf("%w: -spec, -model and -o are required", errUsage)
	}
	if *model == *out || *specFile == *out {
		return fmt.Errorf("%w: -o %s would overwrite an input", errUsage, *out)
	}
	specs, err := readSpecs(*specFile)
	if err != nil {
		return fmt.Errorf("-spec %s: %w", *specFile, err)
	}
	if len(specs) != 1 {
		return fmt.Errorf("%w: -spec %s holds %d specs, want one", errUsage, *specFile, len(specs))
	}
	a, err := taskarch.Arch(specs[0])
	if err != nil {
		return fmt.Errorf("-spec %s: %w", *specFile, err)
	}
	b, err := os.ReadFile(*model)
	if err != nil {
		return err
	}
	h, params, err := nn.Decode(b)
	if err != nil {
		return fmt.Errorf("-model %s: %w", *model, err)
	}
	if sum, _ := a.ShapeChecksum(); h.Arch != a.Name || sum != h.ShapeChecksum {
		return fmt.Errorf("-model %s: %w: it is %s (layout %016x), the spec's model is %s (layout %016x)",
			*model, nn.ErrMismatch, h.Arch, h.ShapeChecksum, a.Name, sum)
	}
	return writeExport(stdout, *format, *out, a, params, encode)
}
