package overlaysim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// scaleCheck is how often (virtual) Scale checks correctness while it
// builds: a check of 10,000 tables costs about as much as simulating
// 100 ms, so checking every Params.Every would slow the build by a third.
const scaleCheck = time.Second

// ScaleRun is one Scale run.
type ScaleRun struct {
	N, Fails int
	// BuildWall and BuildVirtual are the wall and virtual time the build
	// took; Events the simulation events it ran.
	BuildWall, BuildVirtual time.Duration
	BuildEvents             uint64
	// BuildCPU and ChurnCPU are the process CPU time (user + system) of
	// the phases (Linux; 0 elsewhere): with all cores busy elsewhere the
	// wall time overstates the work.
	BuildCPU, ChurnCPU time.Duration
	// Recovery traces the overlay after the Fails crashes; ChurnWall is
	// its wall time.
	Recovery  Trace
	ChurnWall time.Duration
	// PeakRSS is the process's peak resident set size (Linux getrusage;
	// 0 elsewhere), PeakSys the peak of runtime.MemStats.Sys sampled
	// every 100 ms of wall time. Bytes.
	PeakRSS, PeakSys uint64
}

// PeakMem is PeakRSS where known, else PeakSys.
func (r ScaleRun) PeakMem() uint64 {
	if r.PeakRSS > 0 {
		return r.PeakRSS
	}
	return r.PeakSys
}

// Scale builds an overlay of n nodes by batches of concurrent joins, each
// batch as large as the overlay so far (1, 2, 4, ... nodes), waiting
// after each for correctness, then crashes fails nodes at once and traces
// the recovery. It measures wall time and peak memory.
func Scale(ctx context.Context, p Params, n, fails int) (ScaleRun, error) {
	if n < 2 || fails < 1 || fails >= n {
		return ScaleRun{}, fmt.Errorf("%w: %d failures of %d nodes, want 1..n-1", ErrInvalid, fails, n)
	}
	mem := startMemPeak(100 * time.Millisecond)
	r := ScaleRun{N: n, Fails: fails}
	err := scale(ctx, p, &r)
	r.PeakSys = mem.stop()
	r.PeakRSS, _ = maxRSS()
	return r, err
}

func scale(ctx context.Context, p Params, r *ScaleRun) error {
	c, err := p.newCluster(true)
	if err != nil {
		return err
	}
	start, cpu0 := time.Now(), cpuTime()
	bar := p.bar(fmt.Sprintf("build %d nodes (joins)", r.N), r.N-1)
	g := grower{
		c: c, rng: rand.New(rand.NewPCG(p.Seed, 0x5ca1e)),
		batch: func(live int) int { return live },
		every: max(p.Every, scaleCheck), limit: p.Limit, bar: bar,
	}
	err = g.grow(ctx, p.ids("scale", r.N))
	bar.Finish()
	if err != nil {
		return err
	}
	r.BuildWall, r.BuildVirtual, r.BuildEvents = time.Since(start), c.Now(), c.Scheduler().Executed()
	r.BuildCPU = cpuTime() - cpu0

	start, cpu0 = time.Now(), cpuTime()
	if err := crash(c, r.Fails, rand.New(rand.NewPCG(p.Seed, 0xfa11))); err != nil {
		return err
	}
	r.Recovery = recovery(ctx, p, g.k, fmt.Sprintf("fail=%d", r.Fails))
	r.ChurnWall, r.ChurnCPU = time.Since(start), cpuTime()-cpu0
	if err := ctx.Err(); err != nil {
		return err
	}
	return clusterErrors(c)
}
