package main

import (
	"context"
	"io"
)

func init() {
	register(&command{
		name:    "demo",
		summary: "the main job of `make demo`: the most complete PeerLearn run available here",
		run:     runDemo,
	})
}

// runDemo is what `make demo` runs. Until peers train together over the
// network it is a local training run with live progress.
func runDemo(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("demo")
	dir := fs.String("data", defaultDataDir(), "data directory filled by `make data`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	logf("demo: training the MNIST MLP on one node (peers over the overlay come with the simulator and network work)")
	return runTrain(ctx, []string{"-data", *dir, "-arch", "mlp", "-epochs", "2"}, stdout, logf)
}
