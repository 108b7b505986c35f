package nn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/internal/f32"
)

func newTrainer(t *testing.T, name string, seed uint64, opt Optimizer) *Trainer {
	t.Helper()
	a, err := NewArch(name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Init(rand.New(rand.NewPCG(seed, 0)), HeNormal, nil); err != nil {
		t.Fatal(err)
	}
	if opt == nil {
		opt, err = NewSGD(0.05, 0.9, 0)
		if err != nil {
			t.Fatal(err)
		}
	}
	tr, err := NewTrainer(m, opt)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestTrainingReducesLoss(t *testing.T) {
	adam, _ := NewAdam(0.002)
	adamCNN, _ := NewAdam(0.003)
	for _, c := range []struct {
		arch string
		opt  Optimizer
	}{{"mlp", nil}, {"fedlay-mlp", adam}, {"small-cnn", nil}, {"dechw-cnn", adamCNN}} {
		t.Run(c.arch, func(t *testing.T) {
			tr := newTrainer(t, c.arch, 1, c.opt)
			x, y := synthetic(2, tr.Arch(), 300)
			before, err := tr.Evaluate(x, y)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 0))
			for range 4 {
				if _, err := tr.TrainEpoch(context.Background(), x, y, EpochConfig{Batch: 32, Shuffle: rng}); err != nil {
					t.Fatal(err)
				}
			}
			after, err := tr.Evaluate(x, y)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("loss %.4f -> %.4f, accuracy %.3f -> %.3f", before.Loss, after.Loss, before.Accuracy, after.Accuracy)
			if after.Loss > before.Loss/4 || after.Accuracy < 0.9 {
				t.Fatalf("loss %.4f -> %.4f, accuracy %.3f -> %.3f", before.Loss, after.Loss, before.Accuracy, after.Accuracy)
			}
		})
	}
}

// trainDigest trains small-cnn and mlp for a few steps from seed and
// returns the parameter fingerprints.
func trainDigest(t *testing.T, seed uint64) [2]Digest {
	t.Helper()
	var d [2]Digest
	for i, name := range []string{"small-cnn", "mlp"} {
		tr := newTrainer(t, name, seed, nil)
		x, y := synthetic(seed, tr.Arch(), 96)
		rng := rand.New(rand.NewPCG(seed, 1))
		if _, err := tr.TrainEpoch(context.Background(), x, y, EpochConfig{Batch: 32, Shuffle: rng}); err != nil {
			t.Fatal(err)
		}
		d[i] = Fingerprint(tr.Model().Params())
	}
	return d
}

func TestSameSeedSameParameters(t *testing.T) {
	defer f32.SetThreads(f32.SetThreads(1))
	defer f32.SetAccelerated(f32.SetAccelerated(false))
	ref := trainDigest(t, 5)
	if trainDigest(t, 5) != ref {
		t.Fatal("same seed, different parameters")
	}
	if trainDigest(t, 6) == ref {
		t.Fatal("different seeds, same parameters")
	}
	// Kernels split work by output rows without changing any sum's order,
	// so the thread count does not change a bit, accelerated or not.
	f32.SetThreads(2)
	if trainDigest(t, 5) != ref {
		t.Fatal("2 threads changed the parameters")
	}
	if f32.SetAccelerated(true); f32.Accelerated() {
		f32.SetThreads(1)
		acc1 := trainDigest(t, 5)
		f32.SetThreads(2)
		if trainDigest(t, 5) != acc1 {
			t.Fatal("accelerated kernels: 2 threads changed the parameters")
		}
	}
}

func TestHessianDiagMatchesPerSampleGradients(t *testing.T) {
	archs := gradArchs()
	small, _ := NewArch("small-cnn")
	archs = append(archs, small)
	for i, a := range archs {
		t.Run(a.Name, func(t *testing.T) {
			m := initModel(t, a, uint64(300+i))
			x, y := randomBatch(rand.New(rand.NewPCG(13, uint64(i))), a, 7)
			got := make([]float32, m.NumParams())
			yields := 0
			if err := m.HessianDiag(x, y, 3, got, func() { yields++ }); err != nil {
				t.Fatal(err)
			}
			if yields != 2 {
				t.Errorf("yield called %d times for 3 batches, want 2", yields)
			}
			// Reference: one LossGrad per sample (the mean over one sample is
			// that sample's gradient), squared, averaged in float64.
			want := make([]float64, m.NumParams())
			f := len(x) / len(y)
			for s := range y {
				if _, err := m.LossGrad(x[s*f:(s+1)*f], y[s:s+1]); err != nil {
					t.Fatal(err)
				}
				for j, g := range m.Grads() {
					want[j] += float64(g) * float64(g) / float64(len(y))
				}
			}
			var scale float64
			for _, w := range want {
				scale = max(scale, w)
			}
			for j, w := range want {
				if math.Abs(float64(got[j])-w) > 1e-5*math.Abs(w)+1e-7*scale {
					t.Fatalf("entry %d = %v, per-sample reference %v", j, got[j], w)
				}
			}
		})
	}
}

func TestEvaluateCountsPredictions(t *testing.T) {
	a := gradArchs()[4]
	m := initModel(t, a, 9)
	x, y := randomBatch(rand.New(rand.NewPCG(21, 0)), a, 11)
	r, err := m.Evaluate(x, y, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	logits := refLogits(a, to64(m.Params()), x, len(y))
	correct, perClass, total := 0, make([]int, a.Classes), make([]int, a.Classes)
	for i, z := range logits {
		best := 0
		for j := range z {
			if z[j] > z[best] {
				best = j
			}
		}
		total[y[i]]++
		if best == int(y[i]) {
			correct++
			perClass[y[i]]++
		}
	}
	if r.Samples != 11 || r.Accuracy != float64(correct)/11 {
		t.Errorf("accuracy %v over %d samples, reference %d/11", r.Accuracy, r.Samples, correct)
	}
	for c := range a.Classes {
		if r.Correct[c] != perClass[c] || r.Total[c] != total[c] {
			t.Errorf("class %d: %d/%d, reference %d/%d", c, r.Correct[c], r.Total[c], perClass[c], total[c])
		}
	}
	if want := refLoss(a, to64(m.Params()), x, y); math.Abs(r.Loss-want) > 1e-5*want {
		t.Errorf("loss %v, reference %v", r.Loss, want)
	}
	acc := r.ClassAccuracy()
	for c := range acc {
		if total[c] > 0 && acc[c] != float64(perClass[c])/float64(total[c]) {
			t.Errorf("class %d accuracy %v", c, acc[c])
		}
	}
}

// TestTrainBatchAllocatesNothingInNN checks that, once warmed up, a
// training step allocates nothing in this package: every allocation
// recorded by the heap profiler is attributed to the first non-runtime
// function on its stack, and none may be in nn. (internal/f32's kernels
// allocate closures and scratch per GEMM call; that is theirs to count.)
func TestTrainBatchAllocatesNothingInNN(t *testing.T) {
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	for _, accel := range []bool{false, true} {
		prev := f32.SetAccelerated(accel)
		for _, name := range []string{"mlp", "small-cnn", "dechw-cnn"} {
			tr := newTrainer(t, name, 1, nil)
			x, y := synthetic(1, tr.Arch(), 16)
			step := func() {
				if _, err := tr.TrainBatch(x, y); err != nil {
					t.Fatal(err)
				}
			}
			step()
			before := nnAllocations()
			for range 3 {
				step()
			}
			if n, sites := nnAllocations().since(before); n > 0 {
				t.Errorf("%s (accelerated %v): %d allocations in nn over 3 warm steps, at %v", name, f32.Accelerated(), n, sites)
			}
		}
		f32.SetAccelerated(prev)
	}
}

// allocCounts maps an allocating function to its cumulative allocation count.
type allocCounts map[string]int64

// nnAllocations returns the heap profile's allocation counts by allocating
// function, for functions of package nn.
func nnAllocations() allocCounts {
	// The profile is published at the end of a GC cycle; two make sure it
	// includes everything allocated so far.
	runtime.GC()
	runtime.GC()
	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, true)
	for {
		recs = make([]runtime.MemProfileRecord, n+64)
		var ok bool
		if n, ok = runtime.MemProfile(recs, true); ok {
			break
		}
	}
	counts := allocCounts{}
	for _, r := range recs[:n] {
		frames := runtime.CallersFrames(r.Stack())
		for {
			f, more := frames.Next()
			if !strings.HasPrefix(f.Function, "runtime.") {
				// (nnAllocations' own record slices do not count.)
				if strings.HasPrefix(f.Function, "github.com/peerlearn/peerlearn/engine/nn.") && !strings.Contains(f.Function, "nnAllocations") {
					counts[f.Function] += r.AllocObjects
				}
				break
			}
			if !more {
				break
			}
		}
	}
	return counts
}

// since returns the allocations made after before, and where.
func (c allocCounts) since(before allocCounts) (int64, []string) {
	var total int64
	var sites []string
	for fn, n := range c {
		if d := n - before[fn]; d > 0 {
			total += d
			sites = append(sites, fn)
		}
	}
	return total, sites
}

func TestTrainerYieldsAndReportsProgress(t *testing.T) {
	tr := newTrainer(t, "fedlay-mlp", 1, nil)
	x, y := synthetic(1, tr.Arch(), 100)
	yields, calls, last := 0, 0, 0
	tr.SetYield(func() { yields++ })
	_, err := tr.TrainEpoch(context.Background(), x, y, EpochConfig{Batch: 32, Progress: func(done, total int) {
		calls++
		if done <= last || total != 100 {
			t.Errorf("progress %d/%d after %d", done, total, last)
		}
		last = done
	}})
	if err != nil {
		t.Fatal(err)
	}
	// 100 samples in batches of 32: 4 steps, 3 gaps between them.
	if calls != 4 || last != 100 || yields != 3 {
		t.Fatalf("%d progress calls ending at %d, %d yields; want 4, 100, 3", calls, last, yields)
	}
	tr.SetEvalBatch(30)
	yields = 0
	if _, err := tr.Evaluate(x, y); err != nil || yields != 3 {
		t.Fatalf("Evaluate: %d yields (want 3), err %v", yields, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tr.TrainEpoch(ctx, x, y, EpochConfig{Batch: 32}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
}
