package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/sim/overlaysim"
)

func init() {
	register(&command{
		name:    "sim overlay",
		summary: "NDMP under concurrent joins and failures, build cost, scale (FedLay paper Fig. 8)",
		run:     runSimOverlay,
	})
}

// overlayConfig is one `sim overlay` run: exactly one mode of -join,
// -fail, -build (or -sweep), -scale and -partition.
type overlayConfig struct {
	p             overlaysim.Params
	n, join, fail int
	build, scale  int
	sweep         bool
	churn         float64 // -scale: fraction of the nodes that crash
	partition     time.Duration
	tableEvery    time.Duration
	out           string
	quiet         bool
	// progress receives the progress bars unless quiet.
	progress io.Writer
}

func runSimOverlay(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	cfg, err := parseOverlay(args)
	if err != nil {
		return err
	}
	cfg.progress = os.Stderr
	return simOverlay(ctx, cfg, stdout, logf)
}

func parseOverlay(args []string) (overlayConfig, error) {
	fs := newFlags("sim overlay")
	cfg := overlayConfig{p: overlaysim.DefaultParams()}
	fs.IntVar(&cfg.n, "n", 400, "size of the correct overlay the churn hits (-join, -fail)")
	fs.IntVar(&cfg.join, "join", 0, "Fig. 8a: this many new nodes join the n-node overlay at once")
	fs.IntVar(&cfg.fail, "fail", 0, "Fig. 8b: this many of the n nodes crash at once")
	fs.IntVar(&cfg.build, "build", 0, "Fig. 8c: build an overlay of this many nodes by sequential joins and count the messages per node")
	fs.BoolVar(&cfg.sweep, "sweep", false, "Fig. 8c sweep: build ten sizes, build/10 to build (-build defaults to 1000 here)")
	fs.IntVar(&cfg.scale, "scale", 0, "build an overlay of this many nodes by doubling batches of joins, then crash -churn of it; wall time and peak memory")
	fs.DurationVar(&cfg.partition, "partition", 0, "cut the correct n-node overlay in two random halves for this long, heal, and trace the merge")
	fs.Float64Var(&cfg.churn, "churn", 0.1, "-scale: fraction of the nodes that crash at once")
	fs.DurationVar(&cfg.p.Latency, "latency", cfg.p.Latency, "mean one-way latency (the paper's Fig. 8: 350ms)")
	fs.StringVar(&cfg.p.Dist, "dist", cfg.p.Dist, "latency distribution around the mean: "+strings.Join(overlaysim.Dists, ", ")+" (the paper gives only the mean)")
	fs.IntVar(&cfg.p.Spaces, "spaces", cfg.p.Spaces, "L, the number of ring spaces: degree d <= 2L (the paper's default d = 10)")
	fs.Uint64Var(&cfg.p.Seed, "seed", cfg.p.Seed, "random seed")
	fs.DurationVar(&cfg.p.Every, "every", cfg.p.Every, "virtual time between two correctness samples")
	fs.DurationVar(&cfg.p.Limit, "limit", cfg.p.Limit, "virtual time to wait for a correct overlay (after the churn; after each join or batch of a build)")
	fs.DurationVar(&cfg.p.Hold, "hold", 0, "-join, -fail, -partition: once correct, keep sampling this long and report the fraction of samples still exactly correct (held_correct)")
	fs.DurationVar(&cfg.tableEvery, "table-every", 500*time.Millisecond, "virtual time between the printed rows of a trace (the CSV has every sample)")
	fs.StringVar(&cfg.out, "out", "out/overlay", "directory for the CSV and PNG files")
	fs.BoolVar(&cfg.quiet, "quiet", false, "no progress bars")
	if err := parseFlags(fs, args); err != nil {
		return cfg, err
	}
	if err := cfg.check(); err != nil {
		return cfg, fmt.Errorf("%w: %v", errUsage, err)
	}
	return cfg, nil
}

// check validates the flags together.
func (c *overlayConfig) check() error {
	modes := 0
	for _, on := range []bool{c.join != 0, c.fail != 0, c.build != 0 || c.sweep, c.scale != 0, c.partition != 0} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return errors.New("name exactly one of -join, -fail, -build (or -sweep), -scale, -partition")
	}
	if c.sweep && c.build == 0 {
		c.build = 1000
	}
	switch {
	case c.partition < 0 || c.partition > 0 && c.n < 4:
		return fmt.Errorf("-partition %v of -n %d: want a positive duration and n >= 4", c.partition, c.n)
	case c.join < 0 || c.fail < 0 || c.build < 0 || c.scale < 0:
		return errors.New("-join, -fail, -build and -scale count nodes: want > 0")
	case (c.join > 0 || c.fail > 0) && c.n < 2:
		return fmt.Errorf("-n %d: want >= 2", c.n)
	case c.fail >= c.n && c.fail > 0:
		return fmt.Errorf("-fail %d of -n %d: some must survive", c.fail, c.n)
	case c.build == 1 || c.sweep && c.build < 20:
		return fmt.Errorf("-build %d: want >= 2 (>= 20 with -sweep)", c.build)
	case c.scale == 1:
		return errors.New("-scale 1: want >= 2")
	case c.scale > 0 && (c.scaleFails() < 1 || c.scaleFails() >= c.scale):
		return fmt.Errorf("-churn %v of -scale %d: want at least one failure and one survivor", c.churn, c.scale)
	case c.tableEvery <= 0:
		return fmt.Errorf("-table-every %v: want > 0", c.tableEvery)
	}
	return c.p.Validate()
}

func (c *overlayConfig) scaleFails() int {
	if math.IsNaN(c.churn) {
		return 0
	}
	return int(math.Round(c.churn * float64(c.scale)))
}

// sweepSizes are the -sweep sizes: k·build/10 for k = 1..10.
func (c *overlayConfig) sweepSizes() []int {
	ns := make([]int, 10)
	for k := range ns {
		ns[k] = (k + 1) * c.build / 10
	}
	return ns
}

func simOverlay(ctx context.Context, cfg overlayConfig, stdout io.Writer, logf func(string, ...any)) error {
	if !cfg.quiet {
		cfg.p.Progress = cfg.progress
	}
	switch {
	case cfg.join > 0 || cfg.fail > 0:
		return simChurn(ctx, cfg, stdout, logf)
	case cfg.build > 0:
		return simBuild(ctx, cfg, stdout, logf)
	case cfg.partition > 0:
		return simPartition(ctx, cfg, stdout, logf)
	}
	return simScale(ctx, cfg, stdout, logf)
}

func simChurn(ctx context.Context, cfg overlayConfig, stdout io.Writer, logf func(string, ...any)) error {
	run, name := overlaysim.Joins, "fig8a"
	k := cfg.join
	if cfg.fail > 0 {
		run, name, k = overlaysim.Failures, "fig8b", cfg.fail
	}
	r, err := run(ctx, cfg.p, cfg.n, k)
	if err != nil {
		return err
	}
	overlaysim.PrintChurn(stdout, cfg.p, r, cfg.tableEvery)
	files, err := overlaysim.WriteTrace(cfg.out, name, r.Title(), r.Trace)
	if err != nil {
		return err
	}
	logf("wrote %s", strings.Join(files, ", "))
	fmt.Fprintln(stdout, r.Line())
	return notCorrect(r.Correct, r.Took)
}

func simBuild(ctx context.Context, cfg overlayConfig, stdout io.Writer, logf func(string, ...any)) error {
	var bs []overlaysim.Build
	if cfg.sweep {
		var err error
		if bs, err = overlaysim.Sweep(ctx, cfg.p, cfg.sweepSizes()); err != nil {
			return err
		}
	} else {
		b, err := overlaysim.BuildOverlay(ctx, cfg.p, cfg.build)
		if err != nil {
			return err
		}
		bs = []overlaysim.Build{b}
	}
	overlaysim.PrintBuilds(stdout, cfg.p, bs)
	files, err := overlaysim.WriteBuilds(cfg.out, bs)
	if err != nil {
		return err
	}
	logf("wrote %s", strings.Join(files, ", "))
	for _, b := range bs {
		fmt.Fprintln(stdout, b.Line())
	}
	return nil
}

func simScale(ctx context.Context, cfg overlayConfig, stdout io.Writer, logf func(string, ...any)) error {
	r, err := overlaysim.Scale(ctx, cfg.p, cfg.scale, cfg.scaleFails())
	if err != nil {
		return err
	}
	overlaysim.PrintScale(stdout, cfg.p, r, cfg.tableEvery)
	files, err := overlaysim.WriteTrace(cfg.out, "scale", fmt.Sprintf("%d of %d nodes fail at once", r.Fails, r.N), r.Recovery)
	if err != nil {
		return err
	}
	logf("wrote %s", strings.Join(files, ", "))
	fmt.Fprintln(stdout, r.Line())
	return notCorrect(r.Recovery.Correct, r.Recovery.Took)
}

func simPartition(ctx context.Context, cfg overlayConfig, stdout io.Writer, logf func(string, ...any)) error {
	r, err := overlaysim.Partition(ctx, cfg.p, cfg.n, cfg.partition)
	if err != nil {
		return err
	}
	overlaysim.PrintPartition(stdout, cfg.p, r, cfg.tableEvery)
	files, err := overlaysim.WriteTrace(cfg.out, "partition", r.Title(), r.Trace)
	if err != nil {
		return err
	}
	logf("wrote %s", strings.Join(files, ", "))
	fmt.Fprintln(stdout, r.Line())
	return notCorrect(r.Correct, r.Took)
}

// notCorrect is the error for a run whose overlay never became correct
// (after its result line: the line says NaN, the exit status 1).
func notCorrect(ok bool, waited time.Duration) error {
	if ok {
		return nil
	}
	return fmt.Errorf("overlay not correct %v after the churn", waited)
}
