package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
)

func init() {
	register(&command{
		name:    "bench train",
		summary: "training throughput (forward+backward+SGD on random data), samples/s",
		run:     runBenchTrain,
	})
}

// runBenchTrain times training steps of one architecture on random
// batches and prints one machine-readable line, the counterpart of
// scripts/bench_torch.py:
//
//	go arch=mlp threads=1 accel=true kernels=avx2+fma batch=64 sps=12345.6 goarch=amd64
//
// With -vs-go it times the pure-Go kernels too, interleaved, and adds
// go_sps and accel_ratio (sps over go_sps) before goarch.
func runBenchTrain(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("bench train")
	arch := fs.String("arch", "mlp", fmt.Sprintf("architecture, one of %v", nn.ArchNames()))
	threads := fs.Int("threads", 1, "cores the kernels may use (0: all; always 1 under wasm)")
	seconds := fs.Float64("seconds", 3, "length of the timed loop")
	warmup := fs.Float64("warmup", 0.5, "untimed steps before, in seconds")
	batch := fs.Int("batch", 64, "samples per step")
	accel := fs.Bool("accel", true, "use the architecture-specific kernels where the CPU has them")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the timed loop to this file (not under wasm)")
	vsGo := fs.Bool("vs-go", false, "also time the pure-Go kernels, interleaved with the accelerated ones in short slices (same load for both), and print go_sps and accel_ratio")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *batch < 1 || !(*seconds > 0) || !(*warmup >= 0) {
		return fmt.Errorf("%w: -batch must be positive, -seconds positive, -warmup not negative", errUsage)
	}
	if *vsGo && !*accel {
		return fmt.Errorf("%w: -vs-go compares the accelerated kernels with pure Go: it needs -accel", errUsage)
	}
	a, err := nn.NewArch(*arch)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	defer f32.SetThreads(f32.SetThreads(*threads))
	defer f32.SetAccelerated(f32.SetAccelerated(*accel))

	m, err := nn.NewModel(a)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if err := m.Init(rng, nn.HeNormal, nil); err != nil {
		return err
	}
	opt, err := nn.NewSGD(0.01, 0, 0)
	if err != nil {
		return err
	}
	// A pool of random batches, cycled: pixels uniform in [0, 1).
	const pool = 8
	features := a.Input[0] * a.Input[1] * a.Input[2]
	xs := make([][]float32, pool)
	ys := make([][]int32, pool)
	for i := range pool {
		xs[i] = make([]float32, *batch*features)
		for j := range xs[i] {
			xs[i][j] = rng.Float32()
		}
		ys[i] = make([]int32, *batch)
		for j := range ys[i] {
			ys[i][j] = int32(rng.IntN(a.Classes))
		}
	}
	var loss float32
	step := func(i int) error {
		l, err := m.LossGrad(xs[i%pool], ys[i%pool])
		if err != nil {
			return err
		}
		loss = l
		return opt.Step(m.Params(), m.Grads())
	}

	// Go-wasm is single-threaded: yield to the event loop between steps
	// would only add noise here, so the loop runs straight through and
	// checks ctx once per step.
	loop := func(d time.Duration, minSteps int) (int, time.Duration, error) {
		start := time.Now()
		n := 0
		for ; n < minSteps || time.Since(start) < d; n++ {
			if err := ctx.Err(); err != nil {
				return n, 0, err
			}
			if err := step(n); err != nil {
				return n, 0, err
			}
		}
		return n, time.Since(start), nil
	}
	if _, _, err := loop(time.Duration(*warmup*float64(time.Second)), 2); err != nil {
		return err
	}
	if *vsGo { // warm up the pure-Go path too (under wasm, V8 compiles in tiers)
		f32.SetAccelerated(false)
		_, _, err := loop(time.Duration(*warmup*float64(time.Second)), 2)
		f32.SetAccelerated(true)
		if err != nil {
			return err
		}
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if !*vsGo {
		steps, elapsed, err := loop(time.Duration(*seconds*float64(time.Second)), 1)
		if err != nil {
			return err
		}
		if err := finite(loss, steps); err != nil {
			return err
		}
		sps := float64(steps**batch) / elapsed.Seconds()
		logf("bench train: %s: %d steps of %d in %v, last loss %.4f", a.Name, steps, *batch, elapsed.Round(time.Millisecond), loss)
		_, err = fmt.Fprintf(stdout, "go arch=%s threads=%d accel=%v kernels=%s batch=%d sps=%.1f goarch=%s\n",
			a.Name, f32.Threads(), f32.Accelerated(), f32.Kernels(), *batch, sps, runtime.GOARCH)
		return err
	}
	// Interleaved A/B: on a shared machine the load changes from second
	// to second, so both kernels run in alternating slices of the same
	// loop (same model, data and process) and each gets the same total.
	if !f32.Accelerated() {
		return fmt.Errorf("-vs-go: no accelerated kernels here: %v", f32.AccelError())
	}
	kernels := f32.Kernels()
	const slice = 250 * time.Millisecond
	var steps [2]int
	var elapsed [2]time.Duration
	for total := time.Duration(0); total < time.Duration(*seconds*float64(time.Second)); total += slice {
		for i, on := range []bool{true, false} {
			f32.SetAccelerated(on)
			// At least 3 steps a slice: on a loaded machine one step can
			// take the whole slice (a collection, V8 compiling a tier),
			// and a rate from one step is that pause, not the kernels.
			n, d, err := loop(slice, 3)
			if err != nil {
				return err
			}
			steps[i] += n
			elapsed[i] += d
		}
	}
	f32.SetAccelerated(true)
	if err := finite(loss, steps[0]+steps[1]); err != nil {
		return err
	}
	sps := float64(steps[0]**batch) / elapsed[0].Seconds()
	goSps := float64(steps[1]**batch) / elapsed[1].Seconds()
	logf("bench train: %s: %s %d steps in %v, go %d steps in %v, last loss %.4f", a.Name, kernels, steps[0], elapsed[0].Round(time.Millisecond),
		steps[1], elapsed[1].Round(time.Millisecond), loss)
	_, err = fmt.Fprintf(stdout, "go arch=%s threads=%d accel=true kernels=%s batch=%d sps=%.1f go_sps=%.1f accel_ratio=%.2f goarch=%s\n",
		a.Name, f32.Threads(), kernels, *batch, sps, goSps, sps/goSps, runtime.GOARCH)
	return err
}

// finite fails a benchmark whose loss diverged (its timing would mean
// nothing: NaNs take other paths).
func finite(loss float32, steps int) error {
	if math.IsNaN(float64(loss)) || math.IsInf(float64(loss), 0) {
		return fmt.Errorf("loss is %v after %d steps", loss, steps)
	}
	return nil
}
