package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/protocol/task/taskarch"
)

func init() {
	register(&command{
		name:    "collect",
		summary: "watch a task as an observer: pull the peers' models, evaluate them, keep the best and the latest (.plnn, .safetensors, .onnx), write progress.csv and progress.png",
		run:     runCollect,
	})
}

// runCollect joins a task as an observer (netpeer.ObserveConfig: no
// overlay place, no training, no model sent), evaluates every model it
// pulls on the task's test set and keeps the results in -o (collector.go).
// It stops after -duration or -max-models models, with one line:
//
//	collect id=<64 hex> task=<64 hex> status=URL out=DIR
//	collect best acc=A round=R from=ID8 t=S models=N   (each time a model beats every earlier one)
//	collect models=N peers=K dropped=D best_acc=A best_round=R best_from=ID8 latest_acc=L out=DIR
func runCollect(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("collect")
	sigURLs := &urlList{urls: []string{"ws://127.0.0.1:8080/signal"}}
	fs.Var(sigURLs, "signal", "signalling server websocket URL (several: comma-separated or the flag repeated)")
	taskArg := fs.String("task", "", "task: its 64-hex-digit ID, or its spec JSON file (default: the server's default task mnist-fedlay)")
	dir := fs.String("data", defaultDataDir(), "data directory (as `peerlearn peer -data`): the test set models are evaluated on")
	out := fs.String("o", "collect", "output folder: best.plnn, latest.plnn, best.safetensors, best.onnx, progress.csv, progress.png")
	duration := fs.Duration("duration", 10*time.Minute, "stop after this long")
	maxModels := fs.Int("max-models", 1000, "stop after evaluating this many models (1 to 100000)")
	evalSamples := fs.Int("eval-samples", 0, "evaluate on the first so many test samples (0: all)")
	pullEvery := fs.Duration("pull-every", netpeer.DefaultObserveConfig().PullEvery, "ask each peer for a newer model this often")
	maxPeers := fs.Int("peers", netpeer.DefaultObserveConfig().MaxPeers, "pull from at most this many peers at once (1 to 64)")
	statusAddr := fs.String("status", "", "serve GET /status (JSON) on this loopback host:port (port 0: any)")
	loopback := fs.Bool("loopback", false, "WebRTC over 127.0.0.1 only (single-machine runs and tests)")
	keyFile := fs.String("key", "", "file holding the observer's ed25519 seed in hex (created if missing; default: a fresh key)")
	verbose := fs.Bool("v", false, "log connections and refusals to stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *duration <= 0 || *maxModels < 1 || *maxModels > maxCollectModels || *evalSamples < 0 {
		return fmt.Errorf("%w: want -duration > 0, 1 <= -max-models <= %d, -eval-samples >= 0", errUsage, maxCollectModels)
	}
	tid, err := parseTaskArg(*taskArg)
	if err != nil {
		return fmt.Errorf("%w: -task: %v", errUsage, err)
	}
	id, err := loadIdentity(*keyFile)
	if err != nil {
		return fmt.Errorf("-key: %w", err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	col := newCollector(*out) // runCollect stops it at -max-models
	defer col.close()
	models := make(chan netpeer.ObservedModel, collectQueue)
	ready := make(chan collectTask, 1)
	oc := netpeer.DefaultObserveConfig()
	oc.PullEvery, oc.MaxPeers = *pullEvery, *maxPeers
	oc.Accept = func(spec task.Spec) (int, error) {
		ct, err := loadCollectTask(spec, *dir, *evalSamples)
		if err != nil {
			return 0, err
		}
		ready <- ct
		return ct.params, nil
	}
	oc.OnModel = func(m netpeer.ObservedModel) {
		select {
		case models <- m:
		default:
			col.dropped.Add(1) // the evaluator is behind: a later pull brings a newer one
		}
	}
	cfg := netpeer.DefaultConfig()
	cfg.SignalURLs, cfg.Task, cfg.Identity = sigURLs.urls, tid, id
	cfg.StatusAddr, cfg.Observe = *statusAddr, &oc
	cfg.RTC.LoopbackOnly = *loopback
	if *verbose {
		cfg.Logf = logf
	}
	p, err := netpeer.New(cfg)
	if err != nil {
		if errors.Is(err, netpeer.ErrConfig) {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		return err
	}
	fmt.Fprintf(stdout, "collect id=%s task=%s status=%s out=%s\n", id.ID().Hex(), tid.Hex(), p.StatusURL(), *out)
	pctx, stop := context.WithTimeout(ctx, *duration)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- p.Run(pctx) }()
	var runErr error
loop:
	for {
		select {
		case ct := <-ready:
			col.task = &ct
		case m := <-models:
			if col.task == nil { // Accept sent it before any model could come
				ct := <-ready
				col.task = &ct
			}
			before := col.best
			if err := col.take(m, time.Now()); err != nil {
				runErr = err
				stop()
				break
			}
			if b := col.best; b != before {
				fmt.Fprintf(stdout, "collect best acc=%.4f round=%d from=%s t=%.1fs models=%d\n", b.Accuracy, b.Round, b.From[:8], b.T, col.n)
			}
			if col.n >= *maxModels {
				stop()
			}
		case err := <-done:
			if runErr == nil {
				runErr = err
			}
			break loop
		}
	}
	if err := col.finish(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return runErr
	}
	fmt.Fprintln(stdout, col.summary())
	return nil
}

const (
	// maxCollectModels bounds -max-models: progress.csv has one row per
	// model and the plot one point.
	maxCollectModels = 100000
	// collectQueue bounds the models waiting for evaluation.
	collectQueue = 4
)

// collectTask is what evaluating a task's models needs.
type collectTask struct {
	spec   task.Spec
	arch   nn.Arch
	tag    string // learn.ArchTag: what peers name the model by
	params int
	eval   *learn.Evaluator
	test   *data.Dataset
	n      int // test samples evaluated on
}

// loadCollectTask loads spec's test set from dir (the task's own data:
// its manifest there, checked) and builds its model's evaluator.
func loadCollectTask(spec task.Spec, dir string, samples int) (collectTask, error) {
	if err := spec.ValidateFor(node.TaskEngine{}); err != nil {
		return collectTask{}, err
	}
	_, test, err := taskarch.LoadData(os.DirFS(dir), spec)
	if err != nil {
		return collectTask{}, fmt.Errorf("-data %s: %w", dir, err)
	}
	a, err := taskarch.For(spec, test.Shape, test.Classes)
	if err != nil {
		return collectTask{}, err
	}
	n, err := a.NumParams()
	if err != nil {
		return collectTask{}, err
	}
	ev, err := learn.NewEvaluator(a)
	if err != nil {
		return collectTask{}, err
	}
	tag, err := learn.ArchTag(a)
	if err != nil {
		return collectTask{}, err
	}
	k := test.Len()
	if samples > 0 {
		k = min(k, samples)
	}
	return collectTask{spec: spec, arch: a, tag: tag, params: n, eval: ev, test: test, n: k}, nil
}
