package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/gpu"
	"github.com/peerlearn/peerlearn/internal/f32"
)

func init() {
	register(&command{
		name:    "bench companion",
		summary: "training throughput of the libtorch companion backend vs the pure-Go engine (needs -tags torch)",
		run:     runBenchCompanion,
	})
}

// runBenchCompanion times training steps (forward + backward + SGD on
// random batches) of the libtorch backend (package gpu) and of the pure-Go
// engine in one process, interleaved, keeping each one's best run, and
// prints one line per engine and architecture and one ratio line each:
//
//	companion arch=mlp engine=torch device=cpu threads=1 batch=64 sps=12345.6 libtorch=1.13.0 blas=openblas
//	companion arch=mlp engine=go threads=1 accel=true batch=64 sps=12345.6
//	companion arch=mlp torch_vs_go=1.23
func runBenchCompanion(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("bench companion")
	archs := fs.String("arch", "mlp,small-cnn", fmt.Sprintf("comma-separated architectures from %v", nn.ArchNames()))
	threads := fs.Int("threads", 1, "threads of both engines (libtorch and OpenBLAS are set process-wide)")
	device := fs.String("device", "cpu", "libtorch device: auto, cpu, cuda or cuda:N")
	seconds := fs.Float64("seconds", 2, "length of each timed loop")
	warmup := fs.Float64("warmup", 0.3, "untimed steps before each timed loop, in seconds")
	repeat := fs.Int("repeat", 3, "timed loops per engine (interleaved); the best counts")
	batch := fs.Int("batch", 64, "samples per step")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *batch < 1 || !(*seconds > 0) || !(*warmup >= 0) || *repeat < 1 || *threads < 1 {
		return fmt.Errorf("%w: -batch, -seconds, -repeat and -threads must be positive, -warmup not negative", errUsage)
	}
	if !gpu.Available() {
		return gpu.ErrNotBuilt
	}
	defer f32.SetThreads(f32.SetThreads(*threads))
	defer f32.SetAccelerated(f32.SetAccelerated(true))

	for _, name := range strings.Split(*archs, ",") {
		a, err := nn.NewArch(strings.TrimSpace(name))
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		goSps, torchSps, dev, err := benchPair(ctx, a, *batch, *threads, *device, *seconds, *warmup, *repeat, logf)
		if err != nil {
			return fmt.Errorf("%s: %w", a.Name, err)
		}
		fmt.Fprintf(stdout, "companion arch=%s engine=torch device=%s threads=%d batch=%d sps=%.1f libtorch=%s blas=%s\n",
			a.Name, dev, gpu.Threads(), *batch, torchSps, gpu.Version(), loadedBLAS())
		fmt.Fprintf(stdout, "companion arch=%s engine=go threads=%d accel=%v batch=%d sps=%.1f\n",
			a.Name, f32.Threads(), f32.Accelerated(), *batch, goSps)
		fmt.Fprintf(stdout, "companion arch=%s torch_vs_go=%.2f\n", a.Name, torchSps/goSps)
	}
	return nil
}

// benchPair measures both engines on the same random batches from the
// same initial parameters and returns the best samples/s of each.
func benchPair(ctx context.Context, a nn.Arch, batch, threads int, device string, seconds, warmup float64, repeat int,
	logf func(string, ...any)) (goSps, torchSps float64, dev string, err error) {
	m, err := nn.NewModel(a)
	if err != nil {
		return 0, 0, "", err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if err := m.Init(rng, nn.HeNormal, nil); err != nil {
		return 0, 0, "", err
	}
	goOpt, err := nn.NewSGD(0.01, 0, 0)
	if err != nil {
		return 0, 0, "", err
	}
	tr, err := nn.NewTrainer(m, goOpt)
	if err != nil {
		return 0, 0, "", err
	}
	tb, err := gpu.New(a, goOpt, gpu.Config{Threads: threads, Device: device})
	if err != nil {
		return 0, 0, "", err
	}
	defer tb.Close()
	if err := tb.SetParams(m.Params()); err != nil {
		return 0, 0, "", err
	}
	// A pool of random batches, cycled: pixels uniform in [0, 1).
	const pool = 8
	features := a.Input[0] * a.Input[1] * a.Input[2]
	xs := make([][]float32, pool)
	ys := make([][]int32, pool)
	for i := range pool {
		xs[i] = make([]float32, batch*features)
		for j := range xs[i] {
			xs[i][j] = rng.Float32()
		}
		ys[i] = make([]int32, batch)
		for j := range ys[i] {
			ys[i][j] = int32(rng.IntN(a.Classes))
		}
	}
	loop := func(b nn.Backend, d time.Duration, minSteps int) (float64, error) {
		start := time.Now()
		n := 0
		var loss float32
		for ; n < minSteps || time.Since(start) < d; n++ {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			l, err := b.TrainBatch(xs[n%pool], ys[n%pool])
			if err != nil {
				return 0, err
			}
			loss = l
		}
		el := time.Since(start)
		if math.IsNaN(float64(loss)) || math.IsInf(float64(loss), 0) {
			return 0, fmt.Errorf("loss is %v after %d steps", loss, n)
		}
		return float64(n*batch) / el.Seconds(), nil
	}
	engines := []struct {
		name string
		b    nn.Backend
		best *float64
	}{{"go", tr, &goSps}, {"torch", tb, &torchSps}}
	for r := range repeat {
		for _, e := range engines {
			if _, err := loop(e.b, time.Duration(warmup*float64(time.Second)), 2); err != nil {
				return 0, 0, "", fmt.Errorf("%s: %w", e.name, err)
			}
			sps, err := loop(e.b, time.Duration(seconds*float64(time.Second)), 1)
			if err != nil {
				return 0, 0, "", fmt.Errorf("%s: %w", e.name, err)
			}
			logf("bench companion: %s %s run %d: %.1f samples/s", a.Name, e.name, r+1, sps)
			*e.best = max(*e.best, sps)
		}
	}
	return goSps, torchSps, tb.Device(), nil
}

// loadedBLAS names the BLAS library mapped into this process (Linux), as
// scripts/bench_torch.py does: without OpenBLAS, libtorch runs the
// reference BLAS, about 20 times slower, and the comparison means nothing.
func loadedBLAS() string {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return "unknown"
	}
	for _, name := range []string{"openblas", "mkl", "blis"} {
		if strings.Contains(string(maps), "lib"+name) {
			return name
		}
	}
	if strings.Contains(string(maps), "libblas.so") {
		return "reference"
	}
	return "none"
}
