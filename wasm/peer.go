//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"syscall/js"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/export"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A tab's connection bounds (join, below, says why they are longer than
// rtc's defaults).
const (
	browserConnectTimeout = 30 * time.Second
	browserGatherTimeout  = 10 * time.Second
)

// browserPeer is one peer in a tab: netpeer.Peer (the FedLay overlay
// over the browser's WebRTC, MEP learning) plus what the page shows.
//
// Concurrency: js/wasm runs one goroutine at a time and switches only
// when one blocks, and mu guards this struct's fields anyway. The
// learn.Peer belongs to netpeer's loop; the status and evaluation
// goroutines read a few of its fields (Published, Mixed, Metrics) between
// the loop's steps, which is consistent only because of that scheduling:
// this file builds for js/wasm only.
type browserPeer struct {
	opts     options
	identity signal.Identity
	id       ident.Peer

	mu       sync.Mutex
	handler  js.Value // the page's onEvent callback, or undefined
	state    string   // idle, loading, starting, joining, member, leaving, left, failed
	lastErr  string
	logs     []string // not yet sent to the page
	np       *netpeer.Peer
	cancel   context.CancelFunc
	done     chan struct{} // closed when the current Run returns
	started  time.Time
	spec     *task.Spec // the welcome's; its OverlaySpaces is the overlay's L
	ds       *dataSet   // cached across joins that cut the same shard (dataKey)
	lp       *learn.Peer
	lcfg     learn.Config
	spr      int     // samples per round
	capped   string  // why the round was cut, or ""
	trainSPS float64 // calibrated training speed
	hist     history
	lastRnd  int
	seq      uint64       // joins, to tell runs apart
	ctl      *controls    // the volunteer's pause and CPU share (controls.go)
	resume   resumeState  // the session kept across reloads (resume.go)
	trainer  *trainerConn // the trainer worker, or nil: training on the page's thread
	noWorker string       // why training runs on the page's thread
}

func newBrowserPeer(opts options) (*browserPeer, error) {
	var (
		identity signal.Identity
		err      error
	)
	if opts.Seed != nil {
		identity, err = signal.IdentityFromSeed(opts.Seed)
	} else {
		identity, err = signal.NewIdentity(nil)
	}
	if err != nil {
		return nil, err
	}
	b := &browserPeer{opts: opts, identity: identity, id: identity.ID(), state: "idle", ctl: newControls(), noWorker: opts.TrainerNote}
	if opts.Trainer.Truthy() {
		if b.trainer, err = trainerFor(opts.Trainer, opts.TrainerKern); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// jsObject is the object newPeer returns.
func (b *browserPeer) jsObject() js.Value {
	obj := js.Global().Get("Object").New()
	report := b.reportError
	// id is a getter: a move changes the tab's key and ID (move.go).
	js.Global().Get("Object").Call("defineProperty", obj, "id", map[string]any{
		"enumerable": true,
		"get": jsFunc("id", report, func(js.Value, []js.Value) any {
			b.mu.Lock()
			defer b.mu.Unlock()
			return b.id.Hex()
		}),
	})
	obj.Set("join", jsFunc("join", report, func(js.Value, []js.Value) any {
		return promise("join", report, func() (any, error) { return nil, b.join() })
	}))
	obj.Set("leave", jsFunc("leave", report, func(js.Value, []js.Value) any {
		return promise("leave", report, func() (any, error) { return nil, b.leave() })
	}))
	obj.Set("status", jsFunc("status", report, func(js.Value, []js.Value) any {
		return toJS(b.status())
	}))
	obj.Set("onEvent", jsFunc("onEvent", report, func(_ js.Value, args []js.Value) any {
		b.mu.Lock()
		defer b.mu.Unlock()
		if len(args) > 0 && args[0].Type() == js.TypeFunction {
			b.handler = args[0]
		} else {
			b.handler = js.Undefined()
		}
		return nil
	}))
	obj.Set("downloadModel", jsFunc("downloadModel", report, func(_ js.Value, args []js.Value) any {
		format := "plnn"
		if len(args) > 0 && args[0].Type() == js.TypeString {
			format = args[0].String()
		}
		name, enc, err := b.model(format)
		if err != nil {
			return js.Global().Get("Promise").Call("reject", jsError(err))
		}
		return js.Global().Get("Promise").Call("resolve", js.ValueOf(map[string]any{"name": name, "bytes": bytesToJS(enc)}))
	}))
	b.addSessionAPI(obj)
	return obj
}

// emit sends an event to the page's handler; a throwing handler is
// logged to the console, never propagated into Go.
func (b *browserPeer) emit(ev map[string]any) {
	b.mu.Lock()
	h := b.handler
	b.mu.Unlock()
	if h.Type() != js.TypeFunction {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			js.Global().Get("console").Call("error", fmt.Sprintf("PeerLearn: onEvent handler threw: %v", r))
		}
	}()
	h.Invoke(toJS(ev))
}

func (b *browserPeer) reportError(err error) {
	b.mu.Lock()
	b.lastErr = err.Error()
	b.mu.Unlock()
	js.Global().Get("console").Call("error", "PeerLearn: "+err.Error())
	b.emit(map[string]any{"type": "error", "message": err.Error()})
}

func (b *browserPeer) setState(s string) {
	b.mu.Lock()
	changed := b.state != s
	b.state = s
	b.mu.Unlock()
	if changed {
		b.emit(map[string]any{"type": "state", "state": s})
	}
}

// logf is netpeer's Logf: it must not block, so lines are queued and
// the status goroutine hands them to the page.
func (b *browserPeer) logf(format string, args ...any) {
	line := time.Now().Format("15:04:05.000 ") + fmt.Sprintf(format, args...)
	b.mu.Lock()
	if len(b.logs) < 500 {
		b.logs = append(b.logs, line)
	}
	b.mu.Unlock()
}

func (b *browserPeer) progress(msg string) {
	b.logf("%s", msg)
	b.emit(map[string]any{"type": "progress", "message": msg})
}

// join starts the peer and returns once it has bootstrapped (state
// joining or member), or with the reason it could not.
func (b *browserPeer) join() error {
	b.mu.Lock()
	if b.done != nil {
		b.mu.Unlock()
		return errors.New("already joined: leave first")
	}
	b.seq++
	b.lastErr = ""
	b.mu.Unlock()

	cfg := netpeer.DefaultConfig()
	b.mu.Lock()
	identity := b.identity // a move's new key, if the tab moved before (move.go)
	b.mu.Unlock()
	cfg.SignalURL, cfg.Task, cfg.Identity = b.opts.SignalURL, b.opts.Task, identity
	cfg.Tick = b.opts.Tick
	// A tab shares its device's CPU with the page, the trainer and
	// whatever else runs there, and its WebRTC steps each wait on that
	// event loop: under load a tab-to-tab connection (two gatherings, a
	// routed offer and answer, ICE and DTLS in two busy browsers) was
	// measured at 13-14 s, at the edge of the native 15 s, and attempts
	// abandoned at 15 s then backed off until none got through. A tab
	// gives a connection as long as Chrome's own ICE takes to give up
	// (about 30 s), and its gathering twice the native bound.
	cfg.RTC.ConnectTimeout, cfg.RTC.GatherTimeout = browserConnectTimeout, browserGatherTimeout
	// The overlay's L is the task's: netpeer takes it from the welcome.
	cfg.Logf = b.logf
	// Evaluation runs here (evaluator.go), yielding to the page between
	// batches; netpeer's own would not.
	cfg.Learn = &netpeer.LearnConfig{Build: b.build}
	cfg.ShareProgress = b.opts.ShareProgress
	cfg.Signal.Yield = powYield()
	if d := b.opts.Defences; d.Moves > 0 {
		// As `peerlearn peer -health-moves`: the check's request to move
		// is taken, within these bounds (move.go follows the new key);
		// where the check is off for the task's rule, the build refuses.
		cfg.Move = node.MoveConfig{Max: d.Moves, Every: node.DefaultMoveEvery}
		cfg.OnMove = b.moved
	}
	np, err := netpeer.New(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	runErr := make(chan error) // unbuffered: received only while join waits
	b.mu.Lock()
	b.np, b.cancel, b.done, b.started = np, cancel, done, time.Now()
	b.lp, b.hist, b.lastRnd = nil, history{}, 0
	b.resume.snap, b.resume.snapSeen = nil, 0
	b.mu.Unlock()
	b.setState("starting")
	b.progress("connecting to " + b.opts.SignalURL)

	goSafe("peer", b.fail, func() {
		defer close(done)
		err := np.Run(ctx)
		if err != nil {
			select {
			case runErr <- err: // join is waiting: its promise reports the error
				b.setState("failed")
				b.mu.Lock()
				b.lastErr = err.Error()
				b.mu.Unlock()
			default: // the peer failed later: tell the page
				b.fail(err)
			}
		} else {
			b.setState("left")
		}
		b.mu.Lock()
		b.done, b.cancel = nil, nil
		b.mu.Unlock()
		b.pushStatus()
	})
	goSafe("status", b.reportError, func() { b.statusLoop(done) })
	goSafe("evaluation", b.reportError, func() { b.evalLoop(done) })

	for {
		select {
		case err := <-runErr:
			return err
		case <-done:
			return errors.New("the peer stopped while joining")
		case <-time.After(100 * time.Millisecond):
		}
		if st := np.Status().State; st == "joining" || st == "member" {
			return nil
		}
	}
}

// powYield is signal.ClientConfig.Yield for one join: between chunks
// of an admission's proof of work the page's event loop gets a turn, so
// that the page, the links and the training go on while the tab pays
// (at a move its links are live). The peer's dials may overlap (a move
// and a re-registration), and a yielder has one owner at a time: mu.
func powYield() func() {
	var mu sync.Mutex
	y := newYielder(10 * time.Millisecond)
	return func() {
		mu.Lock()
		defer mu.Unlock()
		y.Maybe()
	}
}

func (b *browserPeer) fail(err error) {
	b.setState("failed")
	b.reportError(err)
}

// leave runs NDMP's leave and waits for the peer to stop.
func (b *browserPeer) leave() error {
	b.mu.Lock()
	cancel, done := b.cancel, b.done
	b.mu.Unlock()
	if cancel == nil {
		return nil
	}
	b.setState("leaving")
	cancel()
	select {
	case <-done:
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("leave: the peer did not stop within 10 s")
	}
}

// build is netpeer's LearnConfig.Build: it runs on the peer's loop once
// the welcome has brought the task spec. It loads the data (once per
// dataset), sizes the local round for this tab and builds the learning
// peer exactly as a native peer would, but for the round cap.
func (b *browserPeer) build(spec task.Spec, id ident.Peer) (*learn.Peer, *data.Dataset, error) {
	b.mu.Lock()
	b.spec = &spec
	ds := b.ds
	b.mu.Unlock()
	b.setState("loading")
	key := dataKey(spec, id, b.opts.ShardK, b.opts.ShardN)
	if b.opts.Images != nil {
		key = "own|" + spec.Dataset // the volunteer's images, whatever the partition
	}
	if spec.Data != nil {
		key = "files|" + spec.Data.Manifest + "|" + key // the picked files, for this task's data set
	}
	if ds == nil || ds.key != key {
		var err error
		switch {
		case spec.Data != nil && len(b.opts.Files) == 0:
			err = fmt.Errorf("the task %s trains on a data set of its own (samples %s): pick its data folder, or your own files of its form", spec.Name, fmt.Sprint(spec.Model.Input))
		case spec.Data != nil:
			ds, err = ownTaskData(spec, id, b.opts.Files, b.opts.ShardK, b.opts.ShardN, b.progress)
		case b.opts.Images != nil:
			shape := [3]int{28, 28, 1}
			ds, err = ownData(b.opts.Images, b.opts.Labels, shape, 10, b.opts.DataURL, spec.Dataset, b.progress)
		case b.opts.DataURL != "":
			ds, err = serverShard(b.opts.DataURL, spec, id, b.opts.ShardK, b.opts.ShardN, b.progress)
		default:
			err = errors.New("no data: give dataURL or images")
		}
		if err != nil {
			return nil, nil, fmt.Errorf("data: %w", err)
		}
		ds.key = key
	}
	cfg, err := node.LearnerConfig(spec, id, ds.local, b.opts.Tick)
	if err != nil {
		return nil, nil, err
	}
	if err := b.opts.Defences.Apply(&cfg, ds.local.Classes); err != nil {
		return nil, nil, fmt.Errorf("health, suspend, healthMoves: %w", err)
	}
	if spec.Model != nil && spec.Model.Weights != nil {
		b.progress("fetching the task's initial weights from " + spec.Model.Weights.URL)
	}
	if err := netpeer.LoadWeights(context.Background(), spec, &cfg); err != nil {
		return nil, nil, err
	}
	sps, err := b.calibrateTrainer(&cfg, ds.local)
	if err != nil {
		return nil, nil, err
	}
	spr := cfg.LocalSteps * cfg.Batch
	if cfg.LocalSteps == 0 {
		spr = cfg.LocalEpochs * ds.local.Len()
	}
	capped := ""
	if est := time.Duration(float64(spr) / sps * float64(time.Second)); est > b.opts.MaxRound {
		steps := max(1, int(b.opts.MaxRound.Seconds()*sps)/cfg.Batch)
		capped = fmt.Sprintf("a round of %d samples would take this tab ~%v: cut to %d steps of %d (maxRoundMS)",
			spr, est.Round(10*time.Millisecond), steps, cfg.Batch)
		cfg.LocalSteps, cfg.LocalEpochs = steps, 0
		spr = steps * cfg.Batch
		b.progress(capped)
	}
	// Training hands the event loop a turn every 10 ms, so WebRTC,
	// heartbeats and the page keep going during a round, and obeys the
	// volunteer's pause and CPU share (controls.go).
	cfg.Yield = b.learnerYield()
	lp, err := learn.NewPeer(cfg, ds.local)
	if err != nil {
		return nil, nil, err
	}
	// A saved session, if the page imported one, is applied before the
	// learner is published: a status read in between showed the resumed
	// tab at round 0 (TestBrowserResumeMethod caught it once, loaded).
	b.applyResume(lp, cfg)
	b.mu.Lock()
	b.ds, b.lp, b.lcfg, b.spr, b.capped, b.trainSPS = ds, lp, cfg, spr, capped, sps
	b.mu.Unlock()
	b.progress(fmt.Sprintf("learning %s: %s, %d parameters, %d samples a round, ~%.0f samples/s here", spec.Name, lp.ArchTag(), lp.NumParams(), spr, sps))
	b.setState("joining")
	return lp, ds.test, nil
}

// calibrate measures this tab's training speed on a scratch copy of the
// model (a few batches of the local data), yielding between batches.
func calibrate(cfg learn.Config, local *data.Dataset) (float64, error) {
	m, err := nn.NewModel(cfg.Arch)
	if err != nil {
		return 0, err
	}
	if err := m.Init(rand.New(rand.NewPCG(1, 2)), nn.HeNormal, nil); err != nil {
		return 0, err
	}
	opt, err := cfg.Optimizer.New()
	if err != nil {
		return 0, err
	}
	tr, err := nn.NewTrainer(m, opt)
	if err != nil {
		return 0, err
	}
	y := newYielder(10 * time.Millisecond)
	f, bs := local.Features(), min(cfg.Batch, local.Len())
	x, lb := local.X[:bs*f], local.Y[:bs]
	if _, err := tr.TrainBatch(x, lb); err != nil { // warm-up
		return 0, err
	}
	var spent time.Duration
	n := 0
	for spent < 150*time.Millisecond || n < 3 {
		y.Yield()
		t0 := time.Now()
		if _, err := tr.TrainBatch(x, lb); err != nil {
			return 0, err
		}
		spent += time.Since(t0)
		n += bs
	}
	return float64(n) / spent.Seconds(), nil
}

// model encodes the last published model: in nn's versioned format
// ("plnn"), or for other runtimes as safetensors (PyTorch state_dict
// names) or ONNX (opset 13), engine/export's encoders, as `peerlearn
// export` writes them.
func (b *browserPeer) model(format string) (string, []byte, error) {
	b.mu.Lock()
	lp, cfg, spec := b.lp, b.lcfg, b.spec
	b.mu.Unlock()
	if lp == nil || lp.Published() == nil {
		return "", nil, errors.New("no model yet: join and wait for the first round")
	}
	var enc []byte
	var err error
	switch format {
	case "plnn":
		sum, serr := cfg.Arch.ShapeChecksum()
		if serr != nil {
			return "", nil, serr
		}
		enc, err = nn.AppendEncoded(nil, cfg.Arch.Name, sum, lp.Published())
	case "safetensors":
		enc, err = export.Safetensors(cfg.Arch, lp.Published())
	case "onnx":
		enc, err = export.ONNX(cfg.Arch, lp.Published())
	default:
		return "", nil, fmt.Errorf("download format %q: want plnn, safetensors or onnx", format)
	}
	if err != nil {
		return "", nil, err
	}
	b.mu.Lock()
	id := b.id // a move changes it
	b.mu.Unlock()
	name := fmt.Sprintf("peerlearn-%s-%s-round%d.%s", spec.Name, id, lp.Metrics().Rounds, format)
	return name, enc, nil
}
