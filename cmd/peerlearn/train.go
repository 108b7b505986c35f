package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/internal/progress"
)

func init() {
	register(&command{
		name:    "train",
		summary: "train one model locally on a whole dataset (one node, no peers), test accuracy per epoch",
		run:     runTrain,
	})
}

// runTrain trains one model on a dataset's full train split, reports test
// loss and accuracy after each epoch, and ends with one summary line:
//
//	train arch=mlp dataset=mnist epochs=1 acc=0.9641
func runTrain(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("train")
	dir := fs.String("data", defaultDataDir(), "data directory filled by `make data` (default $PEERLEARN_DATA, else .data)")
	dataset := fs.String("dataset", "mnist", "dataset: "+strings.Join(data.Names(), ", "))
	arch := fs.String("arch", "mlp", "architecture: "+strings.Join(nn.ArchNames(), ", "))
	epochs := fs.Int("epochs", 1, "passes over the train set")
	batch := fs.Int("batch", 64, "samples per step")
	optName := fs.String("opt", "sgd", "optimiser: sgd, adam, adamw")
	lr := fs.Float64("lr", 0, "learning rate (0: 0.05 for sgd, 0.001 for adam and adamw)")
	momentum := fs.Float64("momentum", 0.9, "SGD momentum")
	wd := fs.Float64("wd", 0, "weight decay (L2 for sgd and adam, decoupled for adamw)")
	initName := fs.String("init", "he", "weight initialisation: he, glorot")
	seed := fs.Uint64("seed", 1, "seed of the initialisation and of the shuffling")
	threads := fs.Int("threads", 0, "cores the kernels may use (0: all; always 1 under wasm)")
	save := fs.String("save", "", "write the trained parameters (nn encoding) to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !slices.Contains(nn.ArchNames(), *arch) {
		return fmt.Errorf("%w: -arch %q: want one of %v", errUsage, *arch, nn.ArchNames())
	}
	if *epochs < 1 || *batch < 1 {
		return fmt.Errorf("%w: -epochs and -batch must be at least 1", errUsage)
	}
	scheme, ok := map[string]nn.InitScheme{"he": nn.HeNormal, "glorot": nn.GlorotUniform}[*initName]
	if !ok {
		return fmt.Errorf("%w: -init %q: want he or glorot", errUsage, *initName)
	}
	opt, err := newOptimizer(*optName, float32(*lr), float32(*momentum), float32(*wd))
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}

	train, test, err := data.Load(os.DirFS(*dir), *dataset)
	if err != nil {
		if errors.Is(err, data.ErrUnknown) {
			return fmt.Errorf("%w: -dataset: %v", errUsage, err)
		}
		return fmt.Errorf("-data %s: %w", *dir, err)
	}
	a, err := nn.ArchFor(*arch, train.Shape, train.Classes)
	if err != nil {
		return fmt.Errorf("%w: -arch: %v", errUsage, err)
	}
	defer f32.SetThreads(f32.SetThreads(*threads))
	m, err := nn.NewModel(a)
	if err != nil {
		return err
	}
	// One stream for the weights, another for the sample order.
	if err := m.Init(rand.New(rand.NewPCG(*seed, 1)), scheme, nil); err != nil {
		return err
	}
	tr, err := nn.NewTrainer(m, opt)
	if err != nil {
		return err
	}
	shuffle := rand.New(rand.NewPCG(*seed, 2))
	logf("train: %s (%d parameters) on %s: %d train, %d test samples; %s, batch %d, %d threads, accelerated kernels %v",
		a, m.NumParams(), *dataset, train.Len(), test.Len(), *optName, *batch, f32.Threads(), f32.Accelerated())

	var r nn.Metrics
	for e := 1; e <= *epochs; e++ {
		bar := progress.New(os.Stderr, fmt.Sprintf("epoch %d/%d", e, *epochs), int64(train.Len()))
		start := time.Now()
		loss, err := tr.TrainEpoch(ctx, train.X, train.Y, nn.EpochConfig{
			Batch:    *batch,
			Shuffle:  shuffle,
			Progress: func(done, _ int) { bar.Set(int64(done), 0) },
		})
		bar.Finish()
		if err != nil {
			return fmt.Errorf("epoch %d: %w", e, err)
		}
		took := time.Since(start)
		if r, err = tr.Evaluate(test.X, test.Y); err != nil {
			return fmt.Errorf("epoch %d: evaluation: %w", e, err)
		}
		fmt.Fprintf(stdout, "epoch %d train_loss=%.4f test_loss=%.4f test_acc=%.4f time=%.1fs samples_per_s=%.0f\n",
			e, loss, r.Loss, r.Accuracy, took.Seconds(), float64(train.Len())/took.Seconds())
	}
	if *save != "" {
		b, err := m.MarshalBinary()
		if err != nil {
			return err
		}
		if err := os.WriteFile(*save, b, 0o644); err != nil {
			return err
		}
		logf("train: wrote %s (%d bytes, fingerprint %s)", *save, len(b), nn.Fingerprint(m.Params()))
	}
	_, err = fmt.Fprintf(stdout, "train arch=%s dataset=%s epochs=%d acc=%.4f\n", a.Name, *dataset, *epochs, r.Accuracy)
	return err
}

// newOptimizer builds the optimiser a -opt flag names; lr 0 picks its default.
func newOptimizer(name string, lr, momentum, wd float32) (nn.Optimizer, error) {
	switch name {
	case "sgd":
		if lr == 0 {
			lr = 0.05
		}
		return nn.NewSGD(lr, momentum, wd)
	case "adam", "adamw":
		if lr == 0 {
			lr = 0.001
		}
		if name == "adamw" {
			return nn.NewAdamW(lr, wd)
		}
		a, err := nn.NewAdam(lr)
		if err == nil {
			a.WeightDecay = wd
		}
		return a, err
	}
	return nil, fmt.Errorf("-opt %q: want sgd, adam or adamw", name)
}
