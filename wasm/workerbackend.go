//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"syscall/js"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
)

// Training in a Web Worker, the page's side (trainer.go is the worker's).
//
// Why this split and not the whole peer in the worker: browsers offer
// RTCPeerConnection on the page's thread only (Chromium has none in
// workers), and the peer's networking is pion's wrapper around it, so a
// peer in the worker would need every WebRTC call and event shimmed
// across postMessage. Training, on the other hand, already has a seam
// made for an engine outside the Go runtime: learn.Config.NewBackend
// (the libtorch companion's), through which learn.Peer copies the model
// in before a round, trains batch by batch and copies it out after, for
// the MEP and every method core alike. workerBackend is such a backend:
// each call is one message to the worker and one reply, on the goroutine
// running the round, which blocks on the reply while the page's event
// loop runs (drawing, WebRTC, the WebSocket). The batches are still drawn
// by learn.Peer from its seeded iterator, so a tab trains exactly the
// batches a native peer with its ID would.

// trainerTimeout bounds one request: a worker that never answers fails
// the round instead of hanging the peer.
const trainerTimeout = 60 * time.Second

// trainerConn is the page's connection to the trainer worker. Calls are
// serialised: one request in flight.
type trainerConn struct {
	worker  js.Value
	kernels string // the worker's f32 kernels
	onMsg   js.Func
	onErr   js.Func

	call sync.Mutex // held for a whole request

	mu      sync.Mutex
	nextID  int
	pending map[int]chan js.Value
	dead    error // set once the worker failed: every later call fails
	stats   workerStats
}

// workerStats is what the worker reported with its last reply.
type workerStats struct {
	Batches int64   `json:"batches"`
	Samples int64   `json:"samples"`
	Evals   int64   `json:"evals"`
	BusyMS  float64 `json:"busy_ms"`
}

var (
	trainersMu sync.Mutex
	trainers   []*trainerConn // one per Worker object the page handed over
)

// trainerFor returns the connection for a Worker that web/trainer.js
// started and found ready (it reported kernels), making it on first use.
func trainerFor(w js.Value, kernels string) (*trainerConn, error) {
	if !w.InstanceOf(js.Global().Get("Worker")) {
		return nil, errors.New("trainer: not a Worker")
	}
	trainersMu.Lock()
	defer trainersMu.Unlock()
	for _, c := range trainers {
		if c.worker.Equal(w) {
			return c, nil
		}
	}
	c := &trainerConn{worker: w, kernels: kernels, pending: map[int]chan js.Value{}}
	c.onMsg = js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 {
			return nil
		}
		d := args[0].Get("data")
		if d.Type() != js.TypeObject {
			return nil
		}
		if d.Get("type").String() == "failed" { // web/worker.js: the worker's Go runtime exited or crashed
			c.fail(fmt.Errorf("the trainer worker failed: %s", jsString(d.Get("message"))))
			return nil
		}
		if d.Get("id").Type() != js.TypeNumber {
			return nil
		}
		c.mu.Lock()
		ch := c.pending[d.Get("id").Int()]
		delete(c.pending, d.Get("id").Int())
		c.mu.Unlock()
		if ch != nil {
			ch <- d // buffered: never blocks the event loop
		}
		return nil
	})
	c.onErr = js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "the trainer worker failed"
		if len(args) > 0 && args[0].Get("message").Type() == js.TypeString {
			msg += ": " + args[0].Get("message").String()
		}
		c.fail(errors.New(msg))
		return nil
	})
	w.Set("onmessage", c.onMsg)
	w.Set("onerror", c.onErr)
	w.Set("onmessageerror", c.onErr)
	trainers = append(trainers, c)
	return c, nil
}

// fail marks the worker dead and fails every request waiting.
func (c *trainerConn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead == nil {
		c.dead = err
	}
	for id, ch := range c.pending {
		ch <- js.ValueOf(map[string]any{"id": id, "error": err.Error()})
		delete(c.pending, id)
	}
}

// do sends one request and waits for its reply. It blocks: never call it
// from a js.FuncOf callback.
func (c *trainerConn) do(op string, fields map[string]any, transfer ...any) (js.Value, error) {
	c.call.Lock()
	defer c.call.Unlock()
	c.mu.Lock()
	if c.dead != nil {
		c.mu.Unlock()
		return js.Value{}, c.dead
	}
	c.nextID++
	id := c.nextID
	ch := make(chan js.Value, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	msg := js.Global().Get("Object").New()
	msg.Set("id", id)
	msg.Set("op", op)
	for k, v := range fields {
		msg.Set(k, v)
	}
	c.worker.Call("postMessage", msg, js.ValueOf(transfer))
	t := time.NewTimer(trainerTimeout)
	defer t.Stop()
	var d js.Value
	select {
	case d = <-ch:
	case <-t.C:
		err := fmt.Errorf("trainer: no reply to %s in %v", op, trainerTimeout)
		c.fail(err)
		return js.Value{}, err
	}
	if e := d.Get("error"); e.Type() == js.TypeString {
		return js.Value{}, fmt.Errorf("trainer: %s", e.String())
	}
	c.mu.Lock()
	c.stats = workerStats{Batches: int64(d.Get("batches").Int()), Samples: int64(d.Get("samples").Int()), Evals: int64(d.Get("evals").Int()), BusyMS: d.Get("busy_ms").Float()}
	c.mu.Unlock()
	return d, nil
}

// Dead returns why the worker failed, or nil while it serves.
func (c *trainerConn) Dead() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

// Stats returns what the worker reported last.
func (c *trainerConn) Stats() workerStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// archFields are a request's arch (JSON), its checksum (a decimal string:
// a uint64 does not fit a JavaScript number) and the optimizer (JSON).
func archFields(arch nn.Arch, oc learn.OptimizerConfig) (map[string]any, error) {
	a, err := json.Marshal(arch)
	if err != nil {
		return nil, err
	}
	o, err := json.Marshal(oc)
	if err != nil {
		return nil, err
	}
	sum, err := arch.ShapeChecksum()
	if err != nil {
		return nil, err
	}
	return map[string]any{"arch": string(a), "checksum": strconv.FormatUint(sum, 10), "optimizer": string(o)}, nil
}

// calibrate measures the worker's training speed as calibrate (peer.go)
// does on the page's thread: a few batches of local's first samples.
func (c *trainerConn) calibrate(cfg learn.Config, local *data.Dataset) (float64, error) {
	f, err := archFields(cfg.Arch, cfg.Optimizer)
	if err != nil {
		return 0, err
	}
	bs := min(cfg.Batch, local.Len())
	x, y := float32sToJS(local.X[:bs*local.Features()]), int32sToJS(local.Y[:bs])
	f["x"], f["y"], f["batch"] = x, y, cfg.Batch
	d, err := c.do("calibrate", f, x.Get("buffer"), y.Get("buffer"))
	if err != nil {
		return 0, err
	}
	return d.Get("sps").Float(), nil
}

// evaluate evaluates params (arch's) on x, y in the worker, on a model
// of its own: the page's evaluations (evalLoop) leave its thread too.
func (c *trainerConn) evaluate(arch nn.Arch, params []float32, x []float32, y []int32) (nn.Metrics, error) {
	var m nn.Metrics
	f, err := archFields(arch, learn.OptimizerConfig{})
	if err != nil {
		return m, err
	}
	pa, xa, ya := float32sToJS(params), float32sToJS(x), int32sToJS(y)
	f["params"], f["x"], f["y"] = pa, xa, ya
	d, err := c.do("evalParams", f, pa.Get("buffer"), xa.Get("buffer"), ya.Get("buffer"))
	if err != nil {
		return m, err
	}
	err = json.Unmarshal([]byte(d.Get("metrics").String()), &m)
	return m, err
}

// newBackend is learn.Config.NewBackend for a peer that trains in the
// worker with optimiser oc (NewBackend's own optimiser, oc.New()'s, is
// the page's copy and stays unused).
func (c *trainerConn) newBackend(oc learn.OptimizerConfig) func(nn.Arch, nn.Optimizer) (nn.Backend, error) {
	return func(arch nn.Arch, _ nn.Optimizer) (nn.Backend, error) {
		f, err := archFields(arch, oc)
		if err != nil {
			return nil, err
		}
		if _, err := c.do("init", f); err != nil {
			return nil, err
		}
		m, err := nn.NewModel(arch)
		if err != nil {
			return nil, err
		}
		return &workerBackend{c: c, arch: arch, oc: oc, n: m.NumParams()}, nil
	}
}

// workerBackend is an nn.Backend that trains in the worker, or, once the
// worker has failed, on the page's thread (a trainer of its own, with a
// fresh optimiser: learn.Peer copies its model in before every round, so
// the next round starts where the peer is).
type workerBackend struct {
	c     *trainerConn
	arch  nn.Arch
	oc    learn.OptimizerConfig
	n     int
	err   error       // ResetOptimizer's, returned by the next call
	yield func()      // learn's, for the fallback trainer
	local *nn.Trainer // the fallback, once the worker failed
}

// fallback returns the page-thread trainer once the worker has failed
// (making it then), or nil while the worker serves.
func (w *workerBackend) fallback() (*nn.Trainer, error) {
	if w.local != nil {
		return w.local, nil
	}
	if w.c.Dead() == nil {
		return nil, nil
	}
	m, err := nn.NewModel(w.arch)
	if err != nil {
		return nil, err
	}
	opt, err := w.oc.New()
	if err != nil {
		return nil, err
	}
	if w.local, err = nn.NewTrainer(m, opt); err != nil {
		return nil, err
	}
	w.local.SetYield(w.yield)
	return w.local, nil
}

var (
	_ nn.Backend            = (*workerBackend)(nil)
	_ learn.ParamsEvaluator = (*workerBackend)(nil)
)

// EvaluateParams is learn.ParamsEvaluator: the neighbourhood check's
// scores, in the worker on a model of its own (evalParams, as the page's
// evaluations), so that the check's arithmetic runs with the SIMD kernels
// and off the page's thread. Once the worker has failed it answers
// learn.ErrNotEvaluating and the check scores on its own model here. It
// leaves the trained model and ResetOptimizer's pending error alone.
func (w *workerBackend) EvaluateParams(params, x []float32, y []int32) (nn.Metrics, error) {
	if err := w.c.Dead(); err != nil {
		return nn.Metrics{}, fmt.Errorf("%w: %w", learn.ErrNotEvaluating, err)
	}
	return w.c.evaluate(w.arch, params, x, y)
}

// String is learn.Peer.Backend's name for it.
func (w *workerBackend) String() string { return "worker/" + w.c.kernels }

func (w *workerBackend) Arch() nn.Arch  { return w.arch }
func (w *workerBackend) NumParams() int { return w.n }

// SetYield keeps yield for the fallback trainer: with the worker, the
// calling goroutine blocks on every reply, which lets the page's event
// loop run, and nothing computes here to yield from.
func (w *workerBackend) SetYield(yield func()) {
	w.yield = yield
	if w.local != nil {
		w.local.SetYield(yield)
	}
}

// sticky returns ResetOptimizer's error (once), and the fallback trainer
// once the worker has failed (nil while it serves).
func (w *workerBackend) sticky() (*nn.Trainer, error) {
	if err := w.err; err != nil {
		w.err = nil
		if w.c.Dead() == nil {
			return nil, err
		}
	}
	return w.fallback()
}

func (w *workerBackend) Params(dst []float32) error {
	if l, err := w.sticky(); err != nil || l != nil {
		return errOr(err, func() error { return l.Params(dst) })
	}
	if len(dst) != w.n {
		return fmt.Errorf("%w: %d values for %d parameters", nn.ErrShape, len(dst), w.n)
	}
	d, err := w.c.do("params", nil)
	if err != nil {
		return err
	}
	return float32sIntoGo(dst, d.Get("params"))
}

func (w *workerBackend) SetParams(src []float32) error {
	if l, err := w.sticky(); err != nil || l != nil {
		return errOr(err, func() error { return l.SetParams(src) })
	}
	if len(src) != w.n {
		return fmt.Errorf("%w: %d values for %d parameters", nn.ErrShape, len(src), w.n)
	}
	a := float32sToJS(src)
	_, err := w.c.do("setParams", map[string]any{"params": a}, a.Get("buffer"))
	return err
}

// errOr returns err, or else what fn returns.
func errOr(err error, fn func() error) error {
	if err != nil {
		return err
	}
	return fn()
}

// batch sends x and y (transferred, not cloned) with op.
func (w *workerBackend) batch(op string, x []float32, y []int32) (js.Value, error) {
	xa, ya := float32sToJS(x), int32sToJS(y)
	return w.c.do(op, map[string]any{"x": xa, "y": ya}, xa.Get("buffer"), ya.Get("buffer"))
}

func (w *workerBackend) TrainBatch(x []float32, y []int32) (float32, error) {
	if l, err := w.sticky(); err != nil || l != nil {
		if err != nil {
			return 0, err
		}
		return l.TrainBatch(x, y)
	}
	d, err := w.batch("train", x, y)
	if err != nil {
		return 0, err
	}
	return float32(d.Get("loss").Float()), nil
}

func (w *workerBackend) Evaluate(x []float32, y []int32) (nn.Metrics, error) {
	var m nn.Metrics
	if l, err := w.sticky(); err != nil || l != nil {
		if err != nil {
			return m, err
		}
		return l.Evaluate(x, y)
	}
	d, err := w.batch("evaluate", x, y)
	if err != nil {
		return m, err
	}
	err = json.Unmarshal([]byte(d.Get("metrics").String()), &m)
	return m, err
}

func (w *workerBackend) HessianDiag(x []float32, y []int32, dst []float32) error {
	if len(dst) != w.n {
		return fmt.Errorf("%w: %d values for %d parameters", nn.ErrShape, len(dst), w.n)
	}
	if l, err := w.sticky(); err != nil || l != nil {
		return errOr(err, func() error { return l.HessianDiag(x, y, dst) })
	}
	d, err := w.batch("hessian", x, y)
	if err != nil {
		return err
	}
	return float32sIntoGo(dst, d.Get("hessian"))
}

var _ learn.StatefulBackend = (*workerBackend)(nil)

// OptState is learn.StatefulBackend's: the worker's optimiser state (the
// fallback trainer's once the worker failed), for a tab's checkpoint.
func (w *workerBackend) OptState() (nn.OptState, error) {
	if l, err := w.sticky(); err != nil || l != nil {
		if err != nil {
			return nn.OptState{}, err
		}
		return nn.StateOf(l.Optimizer())
	}
	d, err := w.c.do("optState", nil)
	if err != nil {
		return nn.OptState{}, err
	}
	st := nn.OptState{Kind: d.Get("kind").String(), Step: d.Get("step").Int()}
	bufs := d.Get("buffers")
	for i := range bufs.Get("length").Int() {
		b, err := float32sFromJS(bufs.Index(i))
		if err != nil {
			return nn.OptState{}, fmt.Errorf("trainer: optimiser buffer %d: %w", i, err)
		}
		st.Buffers = append(st.Buffers, b)
	}
	return st, nil
}

// SetOptState is learn.StatefulBackend's: a resumed tab's optimiser
// state into the worker (nn.SetState's checks, there).
func (w *workerBackend) SetOptState(st nn.OptState, n int) error {
	if n != w.n {
		return fmt.Errorf("%w: optimiser state for %d parameters, the model has %d", nn.ErrShape, n, w.n)
	}
	if l, err := w.sticky(); err != nil || l != nil {
		return errOr(err, func() error { return nn.SetState(l.Optimizer(), st, n) })
	}
	bufs := js.Global().Get("Array").New()
	var transfer []any
	for _, b := range st.Buffers {
		a := float32sToJS(b)
		bufs.Call("push", a)
		transfer = append(transfer, a.Get("buffer"))
	}
	_, err := w.c.do("setOptState", map[string]any{"kind": st.Kind, "step": st.Step, "buffers": bufs}, transfer...)
	return err
}

func (w *workerBackend) ResetOptimizer() {
	if l, err := w.fallback(); err == nil && l != nil {
		l.ResetOptimizer()
		return
	}
	if _, err := w.c.do("reset", nil); err != nil {
		w.err = err
	}
}
