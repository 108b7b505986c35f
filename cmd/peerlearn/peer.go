package main

import (
	"context"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/protocol/task/taskarch"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server"
	"github.com/peerlearn/peerlearn/types/ident"
	"github.com/peerlearn/peerlearn/types/key"
)

func init() {
	register(&command{
		name:    "peer",
		summary: "run one real peer: bootstrap via the signalling server, join the overlay over WebRTC, leave on SIGINT/SIGTERM",
		run:     runPeer,
	})
	register(&command{
		name:    "peer demo",
		summary: "N real peers in one process (own WebRTC stacks, 127.0.0.1) and a signalling server train MNIST together to a target accuracy",
		run:     runPeerDemo,
	})
}

// runPeer runs one peer until interrupted. stdout gets one line at the
// start, a progress line every -every, and one at the end:
//
//	peer id=<64 hex> task=<64 hex> status=http://127.0.0.1:PORT/status
//	peer t=3.0s state=member neighbors=10 connections=10 refused=0 backend=go rounds=4 acc=0.8812 models_in=31 models_out=30
//	peer saved=DIR/NAME.plnn round=R   (with -save, when a new round is written)
//	peer left id=<64 hex>
func runPeer(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("peer")
	sigURLs := &urlList{urls: []string{"ws://127.0.0.1:8080/signal"}}
	fs.Var(sigURLs, "signal", "signalling server websocket URL; several servers of the task: comma-separated or the flag repeated (any that answers is used)")
	bridgeAlone := netpeer.BridgeWhenSplit
	fs.Func("bridge-alone", "with one -signal server, when to register with it again and join through its contacts, which heals long partitions: when-split (default: twice after joining, then while failed neighbours are not back or the peer sits on an islet, about every -bridge-every and then backing off), always (every -bridge-every) or never", func(s string) (err error) {
		bridgeAlone, err = netpeer.ParseBridgeMode(s)
		return err
	})
	bridgeEvery := fs.Duration("bridge-every", netpeer.DefaultConfig().BridgeEvery, "with several -signal servers: move to a random other server about this often, so peers of different servers meet; with one, see -bridge-alone (0: never)")
	taskArg := fs.String("task", "", "task: its 64-hex-digit ID, or a task spec JSON file (default: the server's default task mnist-fedlay)")
	keyFile := fs.String("key", "", "file holding the peer's ed25519 seed in hex (created if missing; default: a fresh key)")
	statusAddr := fs.String("status", "", "serve GET /status (JSON) on this loopback host:port (port 0: any)")
	loopback := fs.Bool("loopback", false, "WebRTC over 127.0.0.1 only (single-machine runs and tests)")
	signalCA := fs.String("signal-ca", "", "PEM file of certificates a wss:// signalling server's must chain to instead of the system's (a LAN demo's self-signed one)")
	tick := fs.Duration("tick", 100*time.Millisecond, "overlay tick")
	fs.Func("spaces", "refused: the overlay's ring count L is the task's (\"spaces\" in the task spec)", refuseSpaces)
	every := fs.Duration("every", 2*time.Second, "progress line period (0: none)")
	verbose := fs.Bool("v", false, "log connections, neighbour changes and refusals to stderr")
	learnOn := fs.Bool("learn", true, "train and exchange models (false: overlay only)")
	shareProgress := fs.Bool("share-progress", false, "send the signalling server a signed summary of this peer's training (round, accuracy, samples, bytes sent) every 30 s, for the task's page and /metrics; training never depends on it")
	dir := fs.String("data", defaultDataDir(), "data directory filled by `make data` (default $PEERLEARN_DATA, else .data), or, for a task with its own data set, the folder of its manifest.json (`peerlearn task manifest`)")
	partition := fs.String("partition", "", "partition of the train set (default: the task's), e.g. dirichlet:0.5, iid, shards:2")
	shard := fs.String("shard", "", "K/N: train on shard K (0-based) of N (default: a shard of the task's partition drawn from the peer ID)")
	evalEvery := fs.Duration("eval-every", 5*time.Second, "evaluate the current model on the test set this often (0: never)")
	evalSamples := fs.Int("eval-samples", 2000, "test samples per evaluation (0: all 10,000)")
	threads := fs.Int("threads", 1, "cores the training kernels may use (0: all)")
	backend := fs.String("backend", "go", "training engine: go, or torch (the GPU companion; needs a binary built with `make companion`)")
	device := fs.String("device", "auto", "libtorch device for -backend torch: auto (CUDA if present, else CPU), cpu, cuda or cuda:N")
	saveDir := fs.String("save", "", "folder to keep the peer's current model in (TASKNAME-PEERID.plnn, the engine's encoding: `peerlearn export` turns it into ONNX or safetensors); written every -save-every and when the peer stops")
	var healthOn, suspendOn choiceFlag
	fs.Var(&healthOn, "health", "check each round whether most neighbours' models pull against this peer's data (a captured neighbourhood); if so, aggregate only with the ones that agree, show it on /status, and with -health-moves move to a new place (docs/SECURITY.md, \"Neighbourhood health\"). Default (auto): on for a task with a clipped- rule, the default defence (it scores every neighbour model each round: about 1.2x a round's CPU); -health=false turns it off")
	healthMoves := fs.Int("health-moves", 0, "with the neighbourhood check: when it finds the neighbourhood captured, move to a new place (a new key, admitted anew at the task's proof of work and the server's per-address limits; the model and its round are kept), at most this many times a run and at most once every 10 minutes (0, the default: never move, only average with the neighbours that agree); with -key the file gets the new key")
	fs.Var(&suspendOn, "suspend", "leave out of the rounds, while they keep at it, neighbours whose models keep pushing the same way against the rest (the drift test's suspension, their weight carrying this peer's own model; docs/SECURITY.md, \"Attackers who know the rule\"). Default (auto): on for a task with a clipped- rule, the default defence; refused for another rule; -suspend=false turns it off")
	saveEvery := fs.Duration("save-every", defaultSaveEvery, "with -save: how often to write the model (only when a new round trained it)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := saveEveryFlag(*saveDir, *saveEvery); err != nil {
		return err
	}
	var saver *modelSaver
	if *saveDir != "" {
		if !*learnOn {
			return fmt.Errorf("%w: -save with -learn=false: the peer trains no model", errUsage)
		}
		var err error
		if saver, err = newModelSaver(*saveDir); err != nil {
			return err
		}
	}
	newBackend, err := backendFlag(*backend, *device, *threads)
	if err != nil {
		return err
	}
	tid, err := parseTaskArg(*taskArg)
	if err != nil {
		return fmt.Errorf("%w: -task: %v", errUsage, err)
	}
	id, err := loadIdentity(*keyFile)
	if err != nil {
		return fmt.Errorf("-key: %w", err)
	}
	cfg := netpeer.DefaultConfig()
	cfg.SignalURLs, cfg.Task, cfg.Identity = sigURLs.urls, tid, id
	cfg.BridgeEvery, cfg.BridgeAlone = *bridgeEvery, bridgeAlone
	cfg.Tick, cfg.StatusAddr = *tick, *statusAddr
	cfg.RTC.LoopbackOnly = *loopback
	if *signalCA != "" {
		if cfg.Signal.RootCAs, err = loadRoots(*signalCA); err != nil {
			return fmt.Errorf("%w: -signal-ca: %v", errUsage, err)
		}
	}
	if *verbose {
		cfg.Logf = logf
	}
	healthMovesSet := false
	fs.Visit(func(f *flag.Flag) { healthMovesSet = healthMovesSet || f.Name == "health-moves" })
	switch {
	case *healthMoves < 0:
		return fmt.Errorf("%w: -health-moves %d", errUsage, *healthMoves)
	case suspendOn.c == node.On && !*learnOn:
		return fmt.Errorf("%w: -suspend with -learn=false: the peer aggregates no models", errUsage)
	case healthOn.c == node.On && !*learnOn:
		return fmt.Errorf("%w: -health with -learn=false: the peer checks no models", errUsage)
	case healthMovesSet && (healthOn.c == node.Off || !*learnOn):
		return fmt.Errorf("%w: -health-moves with -health=false (or -learn=false): only the neighbourhood check asks to move", errUsage)
	case *learnOn && *healthMoves > 0:
		cfg.Move = node.MoveConfig{Max: *healthMoves, Every: node.DefaultMoveEvery}
		if *keyFile != "" {
			file := *keyFile
			cfg.OnMove = func(k key.Pair) {
				if err := writeIdentity(file, k); err != nil {
					logf("peer: -key %s: keeping the new key: %v", file, err)
				}
			}
		}
	}
	if *shareProgress && !*learnOn {
		return fmt.Errorf("%w: -share-progress with -learn=false: an overlay-only peer has no progress to share", errUsage)
	}
	if *learnOn {
		defer f32.SetThreads(f32.SetThreads(*threads))
		k, n, err := parseShard(*shard)
		if err != nil {
			return fmt.Errorf("%w: -shard: %v", errUsage, err)
		}
		cfg.Learn = &netpeer.LearnConfig{
			Build: func(spec task.Spec, pid ident.Peer) (*learn.Peer, *data.Dataset, error) {
				lp, test, err := buildLearner(spec, pid, *dir, *partition, k, n, cfg.Tick, tuneLearner(newBackend, node.Defences{Health: healthOn.c, Suspend: suspendOn.c, Moves: *healthMoves}), logf)
				if err == nil && saver != nil {
					saver.describe(lp.Config().Arch, spec.Name, pid.Hex())
				}
				return lp, test, err
			},
			EvalEvery: *evalEvery, EvalSamples: *evalSamples,
		}
		cfg.ShareProgress = *shareProgress
	}
	p, err := netpeer.New(cfg)
	if err != nil {
		if errors.Is(err, netpeer.ErrConfig) {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		return err
	}
	fmt.Fprintf(stdout, "peer id=%s task=%s status=%s\n", id.ID().Hex(), tid.Hex(), p.StatusURL())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var tc, sc <-chan time.Time
	if *every > 0 {
		t := time.NewTicker(*every)
		defer t.Stop()
		tc = t.C
	}
	save := func() {
		if l := p.Status().Learn; l != nil {
			if path, err := saver.save(l.Model, l.ModelRound); err != nil {
				logf("peer: -save: %v", err)
			} else if path != "" {
				fmt.Fprintf(stdout, "peer saved=%s round=%d\n", path, l.ModelRound)
			}
		}
	}
	if saver != nil {
		t := time.NewTicker(*saveEvery)
		defer t.Stop()
		sc = t.C
	}
	for {
		select {
		case <-sc:
			save()
		case err := <-done:
			if saver != nil {
				save() // the last model, whatever ended the run
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "peer left id=%s\n", p.ID().Hex()) // a move changed it
			return nil
		case <-tc:
			s := p.Status()
			line := fmt.Sprintf("peer t=%.1fs state=%s neighbors=%d connections=%d refused=%d",
				s.UptimeS, s.State, len(s.Neighbors), len(s.Connections), s.RTC.Refused()+s.OverlayRefused)
			if l := s.Learn; l != nil {
				line += fmt.Sprintf(" backend=%s rounds=%d acc=%.4f models_in=%d models_out=%d", l.Backend, l.Rounds, l.Accuracy, l.ModelsReceived, l.ModelsSent)
			}
			fmt.Fprintln(stdout, line)
		}
	}
}

// errSpacesFlag answers -spaces, which peers no longer take: every peer
// of a task must run the same L, so it is the task's.
var errSpacesFlag = errors.New(`the overlay's ring count L is the task's, not a peer's: set "spaces" in the task spec (version 2) that the signalling server hosts; every peer reads it from the welcome`)

func refuseSpaces(string) error { return errSpacesFlag }

// parseShard reads -shard K/N; "" gives (-1, 0).
func parseShard(s string) (k, n int, err error) {
	if s == "" {
		return -1, 0, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	if ok {
		k, err = strconv.Atoi(ks)
	}
	if ok && err == nil {
		n, err = strconv.Atoi(ns)
	}
	if !ok || err != nil || n < 1 || k < 0 || k >= n {
		return 0, 0, fmt.Errorf("%q: want K/N with 0 <= K < N", s)
	}
	return k, n, nil
}

// buildLearner loads the task's dataset from dir, partitions its train
// set (partition, or the task's) into n shards (or the task's parts), and
// builds the learning peer on shard k (or one drawn from the peer ID).
func buildLearner(spec task.Spec, id ident.Peer, dir, partition string, k, n int, tick time.Duration, tune func(*learn.Config, int) error, logf func(string, ...any)) (*learn.Peer, *data.Dataset, error) {
	// A task with its own data set (spec.Data) reads dir's manifest.json
	// and the files it lists, each checked by sha256 (taskarch.LoadData).
	train, test, err := taskarch.LoadData(os.DirFS(dir), spec)
	if err != nil {
		return nil, nil, fmt.Errorf("-data %s: %w", dir, err)
	}
	lp, test, err := learnerOn(spec, id, train, test, partition, k, n, tick, tune, logf)
	// The whole train set (188 MB for MNIST) is garbage now that the
	// shard is copied out, but it set the collector's goal: under
	// GOGC=100 the next collection waited for a ~450 MB heap, so a peer
	// sat on ~310 MB of RSS and grew by everything training allocated
	// (`bench abuse`: no collection in 60 s of training). Collect it
	// once and return it to the OS.
	debug.FreeOSMemory()
	return lp, test, err
}

// learnerOn builds the learning peer on shard k of n of train (see
// buildLearner), with tune, if not nil, applied to the spec's
// configuration (with the shard's class count; tuneLearner: the training
// backend, the neighbourhood check); train is only read.
func learnerOn(spec task.Spec, id ident.Peer, train, test *data.Dataset, partition string, k, n int, tick time.Duration, tune func(*learn.Config, int) error, logf func(string, ...any)) (*learn.Peer, *data.Dataset, error) {
	cut := spec // -partition, if given, cuts the shard another way
	if partition != "" {
		cut.Partition.Spec = partition
	}
	local, test, desc, _, err := taskarch.Shard(train, test, cut, id, k, n)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := node.LearnerConfig(spec, id, local, tick)
	if err != nil {
		return nil, nil, err
	}
	if err := netpeer.LoadWeights(context.Background(), spec, &cfg); err != nil {
		return nil, nil, err
	}
	if tune != nil {
		if err := tune(&cfg, local.Classes); err != nil {
			return nil, nil, err
		}
	}
	lp, err := learn.NewPeer(cfg, local)
	if err != nil {
		return nil, nil, err
	}
	logf("peer %v: shard %s of %s: %d samples, labels %v, training on %s", id, desc, spec.Dataset, local.Len(), local.Hist(), lp.Backend())
	return lp, test, nil
}

// tuneLearner is what `peerlearn peer`'s flags change in a learning
// peer's configuration: the training backend (nil: the pure-Go engine)
// and the defences -health, -suspend and -health-moves set (node.
// Defences: by default the check and the suspension on a clipped rule;
// -suspend refused for another rule, -health-moves where the check is
// off).
func tuneLearner(newBackend newBackendFunc, d node.Defences) func(*learn.Config, int) error {
	return func(c *learn.Config, classes int) error {
		c.NewBackend = newBackend
		if err := d.Apply(c, classes); err != nil {
			return fmt.Errorf("-health, -suspend, -health-moves: %w", err)
		}
		return nil
	}
}

// parseTaskArg reads -task: a hex ID, a spec file, or empty for the
// signalling server's default task.
func parseTaskArg(arg string) (ident.Task, error) {
	if arg == "" {
		s := task.DefaultSpec()
		s.Name = "mnist-fedlay" // cmd/signalserver's default
		return s.ID()
	}
	if len(arg) == 64 && !strings.ContainsAny(arg, "./") {
		return ident.ParseTask(arg)
	}
	b, err := os.ReadFile(arg)
	if err != nil {
		return ident.Task{}, err
	}
	s, err := task.ParseFor(b, node.TaskEngine{}) // refused here, not after the welcome
	if err != nil {
		return ident.Task{}, err
	}
	return s.ID()
}

// loadIdentity reads the seed in file, creating the file with a fresh one
// if it does not exist; with no file, a fresh identity.
func loadIdentity(file string) (signal.Identity, error) {
	if file == "" {
		return signal.NewIdentity(nil)
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		id, err := signal.NewIdentity(nil)
		if err != nil {
			return signal.Identity{}, err
		}
		return id, os.WriteFile(file, []byte(hex.EncodeToString(id.Seed())+"\n"), 0o600)
	}
	if err != nil {
		return signal.Identity{}, err
	}
	seed, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		return signal.Identity{}, fmt.Errorf("%s: %w", file, err)
	}
	return signal.IdentityFromSeed(seed)
}

// writeIdentity replaces file's seed by k's (a move's new key), through
// a temporary file so that a crash leaves the old or the new one.
func writeIdentity(file string, k key.Pair) error {
	tmp := file + ".new"
	if err := os.WriteFile(tmp, []byte(hex.EncodeToString(k.Seed())+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// loadRoots reads a PEM file of certificates into a pool.
func loadRoots(file string) (*x509.CertPool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s: no PEM certificate", file)
	}
	return pool, nil
}

// runPeerDemo starts a signalling server and N peers in this process (each
// with its own pion WebRTC stack, over 127.0.0.1), trains the task until
// the peers' mean test accuracy reaches -target or -limit passes, and
// ends with one summary line:
//
//	peer demo peers=8 reached=true acc_mean=0.8612 acc_min=0.8290 time=38s rounds=18.0 models_in=97.5
func runPeerDemo(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("peer demo")
	dir := fs.String("data", defaultDataDir(), "data directory filled by `make data` (default $PEERLEARN_DATA, else .data)")
	n := fs.Int("peers", 8, "number of peers")
	partition := fs.String("partition", "dirichlet:0.5", "partition of the MNIST train set across the peers")
	target := fs.Float64("target", 0.85, "stop when the peers' mean test accuracy reaches this")
	limit := fs.Duration("limit", 3*time.Minute, "give up after this long")
	steps := fs.Int("steps", 50, "local SGD steps per round")
	period := fs.Duration("period", 2*time.Second, "MEP round period")
	verbose := fs.Bool("v", false, "log every peer's connections and neighbour changes to stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *n < 2 || *target <= 0 || *target > 1 || *steps < 1 {
		return fmt.Errorf("%w: want -peers >= 2, 0 < -target <= 1, -steps >= 1", errUsage)
	}
	spec := task.DefaultSpec()
	spec.Name, spec.LocalEpochs, spec.LocalSteps = "peer-demo", 0, *steps
	spec.PeriodMS, spec.TargetAccuracy = int(period.Milliseconds()), *target
	spec.Partition = task.Partition{Parts: *n, Seed: 1, Spec: *partition}
	tid, err := spec.ID()
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	train, test, err := data.Load(os.DirFS(*dir), spec.Dataset)
	if err != nil {
		return fmt.Errorf("-data %s: %w", *dir, err)
	}
	scfg := server.DefaultConfig()
	scfg.Tasks = []task.Spec{spec}
	srv, err := server.New(scfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go srv.Serve(ln) //nolint:errcheck // ends with Shutdown
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	defer f32.SetThreads(f32.SetThreads(1))

	pctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop() // runs before wg.Wait: peers leave, then we wait
	peers := make([]*netpeer.Peer, *n)
	fmt.Fprintf(stdout, "peer demo: %d peers, MNIST %s, MLP, %d steps per %v round, signalling on ws://%s/signal\n",
		*n, *partition, *steps, *period, ln.Addr())
	for i := range *n {
		id, err := signal.NewIdentity(nil)
		if err != nil {
			return err
		}
		cfg := netpeer.DefaultConfig()
		cfg.SignalURL, cfg.Task, cfg.Identity = "ws://"+ln.Addr().String()+"/signal", tid, id
		cfg.RTC.LoopbackOnly = true
		if *verbose {
			cfg.Logf = logf
		}
		cfg.Learn = &netpeer.LearnConfig{
			Build: func(spec task.Spec, pid ident.Peer) (*learn.Peer, *data.Dataset, error) {
				return learnerOn(spec, pid, train, test, "", i, *n, cfg.Tick, nil, func(string, ...any) {})
			},
			EvalEvery: 3 * time.Second, EvalSamples: 2000,
		}
		p, err := netpeer.New(cfg)
		if err != nil {
			return err
		}
		peers[i] = p
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Run(pctx); err != nil {
				logf("peer demo: peer %d: %v", i, err)
			}
		}()
		time.Sleep(100 * time.Millisecond)
	}
	t0 := time.Now()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		var accs []float64
		var nbrs, rounds, models float64
		for _, p := range peers {
			s := p.Status()
			nbrs += float64(len(s.Neighbors))
			if l := s.Learn; l != nil && l.Evals > 0 {
				accs = append(accs, l.Accuracy)
				rounds += float64(l.Rounds)
				models += float64(l.ModelsReceived)
			}
		}
		mean, lo := 0.0, 1.0
		for _, a := range accs {
			mean += a / float64(len(accs))
			lo = min(lo, a)
		}
		k := float64(max(len(accs), 1))
		reached := len(accs) == *n && mean >= *target
		el := time.Since(t0).Round(time.Second)
		if reached || el >= *limit {
			fmt.Fprintf(stdout, "peer demo peers=%d reached=%v acc_mean=%.4f acc_min=%.4f time=%v rounds=%.1f models_in=%.1f\n",
				*n, reached, mean, lo, el, rounds/k, models/k)
			if !reached {
				return fmt.Errorf("mean accuracy %.4f after %v, target %.2f", mean, el, *target)
			}
			return nil
		}
		fmt.Fprintf(stdout, "peer demo t=%v neighbors=%.1f evaluated=%d acc_mean=%.4f acc_min=%.4f rounds=%.1f models_in=%.1f\n",
			el, nbrs/float64(*n), len(accs), mean, lo, rounds/k, models/k)
	}
}

// urlList is a flag taking URLs, comma-separated or the flag repeated;
// the first use replaces the default.
type urlList struct {
	urls []string
	set  bool
}

func (l *urlList) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(l.urls, ",")
}

func (l *urlList) Set(v string) error {
	if !l.set {
		l.urls, l.set = nil, true
	}
	for _, u := range strings.Split(v, ",") {
		if u = strings.TrimSpace(u); u != "" {
			l.urls = append(l.urls, u)
		}
	}
	if len(l.urls) == 0 {
		return fmt.Errorf("no URL in %q", v)
	}
	return nil
}
