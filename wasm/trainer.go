//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"syscall/js"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/peer/learn"
)

// The trainer: peer.wasm run in a Web Worker (web/worker.js starts it
// with PeerLearnTrainerMode set) holds one nn.Trainer and runs what the
// page's peer asks of it: the page's Go peer keeps the overlay, the MEP,
// aggregation and evaluation, and its learn.Peer trains through
// workerBackend (workerbackend.go), an nn.Backend whose every call is one
// message here and one reply. The page's thread only waits for the reply,
// with its event loop free: training no longer holds its frames.
//
// Messages (the page's, each with a numeric id the reply repeats):
//
//	{op: "init", arch, checksum, optimizer}   build a trainer (JSON arch and
//	                                           optimizer config; the checksum
//	                                           as a decimal string)
//	{op: "setParams", params}                  Float32Array
//	{op: "params"}                             -> {params}
//	{op: "train", x, y}                        one step -> {loss}
//	{op: "evaluate", x, y}                     -> {metrics} (JSON)
//	{op: "hessian", x, y}                      -> {hessian}
//	{op: "reset"}                              drop the optimiser's state
//	{op: "optState"}                           -> {kind, step, buffers}: the
//	                                           optimiser's state (a resumable
//	                                           tab's checkpoint)
//	{op: "setOptState", kind, step, buffers}   restore it
//	{op: "calibrate", arch, optimizer, batch, x, y} -> {sps}: this worker's speed
//	{op: "evalParams", arch, checksum, params, x, y} -> {metrics}: evaluate
//	                                           params on a model of its own
//	                                           (the page's evaluations)
//
// A reply is {id, ok: true, ...} or {id, error}. Counters (batches and
// samples trained, evaluations, milliseconds computing) come with every
// reply, so the page shows what the worker did.

// trainerQueue bounds the messages waiting: the page keeps one request in
// flight (workerBackend serialises its calls), so more is a bug or abuse.
const trainerQueue = 8

// trainerMain serves the page until the worker is terminated.
func trainerMain() {
	self := js.Global()
	reqs := make(chan js.Value, trainerQueue)
	var refused int
	onMessage := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 {
			return nil
		}
		d := args[0].Get("data")
		select {
		case reqs <- d:
		default:
			refused++
			postReply(d, nil, fmt.Errorf("trainer busy: %d requests queued (%d refused)", trainerQueue, refused), nil)
		}
		return nil
	})
	self.Set("onmessage", onMessage)
	ready := map[string]any{"type": "ready", "kernels": f32.Kernels()}
	if err := f32.AccelError(); err != nil {
		ready["kernelsNote"] = err.Error()
	}
	self.Call("postMessage", js.ValueOf(ready))
	t := &trainer{}
	for d := range reqs {
		t.serve(d)
	}
}

type trainer struct {
	tr      *nn.Trainer
	arch    nn.Arch
	eval    *nn.Model // evalParams's, of evalSum's architecture
	evalSum string
	evals   int64
	batches int64
	samples int64
	busy    time.Duration // time spent in train, evaluate and hessian
}

// serve answers one request; a panic becomes the request's error.
func (t *trainer) serve(d js.Value) {
	var (
		out      = map[string]any{}
		transfer []any
		err      error
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = panicError("trainer", r)
			}
		}()
		transfer, err = t.handle(d, out)
	}()
	out["batches"], out["samples"], out["evals"], out["busy_ms"] = t.batches, t.samples, t.evals, float64(t.busy.Microseconds())/1000
	postReply(d, out, err, transfer)
}

func postReply(d js.Value, out map[string]any, err error, transfer []any) {
	msg := js.Global().Get("Object").New()
	if d.Type() == js.TypeObject {
		msg.Set("id", d.Get("id"))
	}
	for k, v := range out {
		msg.Set(k, v)
	}
	if err != nil {
		msg.Set("error", err.Error())
	} else {
		msg.Set("ok", true)
	}
	js.Global().Call("postMessage", msg, js.ValueOf(transfer))
}

// checkedArch reads a message's architecture and optimiser and checks
// the architecture against the page's shape checksum: both sides build
// the same model or the worker refuses.
func checkedArch(d js.Value) (nn.Arch, learn.OptimizerConfig, error) {
	arch, oc, err := archAndOptimizer(d)
	if err != nil {
		return nn.Arch{}, oc, err
	}
	sum, err := arch.ShapeChecksum()
	if err != nil {
		return nn.Arch{}, oc, err
	}
	if want := d.Get("checksum"); want.Type() != js.TypeString || want.String() != strconv.FormatUint(sum, 10) {
		return nn.Arch{}, oc, fmt.Errorf("trainer: architecture %s decodes to checksum %d, the page's is %v", arch, sum, want)
	}
	return arch, oc, nil
}

func (t *trainer) handle(d js.Value, out map[string]any) ([]any, error) {
	if d.Type() != js.TypeObject || d.Get("op").Type() != js.TypeString {
		return nil, errors.New("trainer: a message is {id, op, ...}")
	}
	op := d.Get("op").String()
	switch op {
	case "init":
		arch, oc, err := checkedArch(d)
		if err != nil {
			return nil, err
		}
		m, err := nn.NewModel(arch)
		if err != nil {
			return nil, err
		}
		opt, err := oc.New()
		if err != nil {
			return nil, err
		}
		if t.tr, err = nn.NewTrainer(m, opt); err != nil {
			return nil, err
		}
		t.arch = arch
		return nil, nil
	case "evalParams":
		arch, _, err := checkedArch(d)
		if err != nil {
			return nil, err
		}
		if t.eval == nil || t.evalSum != d.Get("checksum").String() {
			if t.eval, err = nn.NewModel(arch); err != nil {
				return nil, err
			}
			t.evalSum = d.Get("checksum").String()
		}
		p, err := float32sFromJS(d.Get("params"))
		if err != nil {
			return nil, fmt.Errorf("evalParams: %w", err)
		}
		if err := t.eval.SetParams(p); err != nil {
			return nil, err
		}
		ds, err := batchData(d, arch)
		if err != nil {
			return nil, fmt.Errorf("evalParams: %w", err)
		}
		t0 := time.Now()
		m, err := t.eval.Evaluate(ds.X, ds.Y, 64, nil)
		t.busy += time.Since(t0)
		if err != nil {
			return nil, err
		}
		t.evals++
		b, err := json.Marshal(m)
		out["metrics"] = string(b)
		return nil, err
	case "calibrate":
		arch, oc, err := archAndOptimizer(d)
		if err != nil {
			return nil, err
		}
		ds, err := batchData(d, arch)
		if err != nil {
			return nil, err
		}
		cfg := learn.Config{Arch: arch, Optimizer: oc, Batch: d.Get("batch").Int()}
		sps, err := calibrate(cfg, ds)
		out["sps"] = sps
		return nil, err
	}
	if t.tr == nil {
		return nil, fmt.Errorf("trainer: %q before init", op)
	}
	switch op {
	case "setParams":
		p, err := float32sFromJS(d.Get("params"))
		if err != nil {
			return nil, fmt.Errorf("setParams: %w", err)
		}
		return nil, t.tr.SetParams(p)
	case "params":
		p := make([]float32, t.tr.NumParams())
		if err := t.tr.Params(p); err != nil {
			return nil, err
		}
		a := float32sToJS(p)
		out["params"] = a
		return []any{a.Get("buffer")}, nil
	case "reset":
		t.tr.ResetOptimizer()
		return nil, nil
	case "optState":
		st, err := nn.StateOf(t.tr.Optimizer())
		if err != nil {
			return nil, err
		}
		bufs := js.Global().Get("Array").New()
		var transfer []any
		for _, b := range st.Buffers {
			a := float32sToJS(b)
			bufs.Call("push", a)
			transfer = append(transfer, a.Get("buffer"))
		}
		out["kind"], out["step"], out["buffers"] = st.Kind, st.Step, bufs
		return transfer, nil
	case "setOptState":
		st := nn.OptState{Kind: d.Get("kind").String(), Step: d.Get("step").Int()}
		bufs := d.Get("buffers")
		if bufs.Type() != js.TypeObject || bufs.Get("length").Type() != js.TypeNumber || bufs.Get("length").Int() > 8 {
			return nil, errors.New("setOptState: buffers must be an array of at most 8 Float32Arrays")
		}
		for i := range bufs.Get("length").Int() {
			b, err := float32sFromJS(bufs.Index(i))
			if err != nil {
				return nil, fmt.Errorf("setOptState: buffer %d: %w", i, err)
			}
			st.Buffers = append(st.Buffers, b)
		}
		return nil, nn.SetState(t.tr.Optimizer(), st, t.tr.NumParams())
	}
	ds, err := batchData(d, t.arch)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	t0 := time.Now()
	defer func() { t.busy += time.Since(t0) }()
	switch op {
	case "train":
		loss, err := t.tr.TrainBatch(ds.X, ds.Y)
		if err == nil {
			t.batches++
			t.samples += int64(len(ds.Y))
		}
		out["loss"] = float64(loss)
		return nil, err
	case "evaluate":
		m, err := t.tr.Evaluate(ds.X, ds.Y)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(m)
		out["metrics"] = string(b)
		return nil, err
	case "hessian":
		h := make([]float32, t.tr.NumParams())
		if err := t.tr.HessianDiag(ds.X, ds.Y, h); err != nil {
			return nil, err
		}
		a := float32sToJS(h)
		out["hessian"] = a
		return []any{a.Get("buffer")}, nil
	}
	return nil, fmt.Errorf("trainer: unknown op %q", op)
}

// archAndOptimizer decodes a message's JSON arch and optimizer config.
func archAndOptimizer(d js.Value) (nn.Arch, learn.OptimizerConfig, error) {
	var (
		arch nn.Arch
		oc   learn.OptimizerConfig
	)
	if a, o := d.Get("arch"), d.Get("optimizer"); a.Type() != js.TypeString || o.Type() != js.TypeString {
		return arch, oc, errors.New("trainer: arch and optimizer must be JSON strings")
	} else if err := json.Unmarshal([]byte(a.String()), &arch); err != nil {
		return arch, oc, fmt.Errorf("trainer: arch: %w", err)
	} else if err := json.Unmarshal([]byte(o.String()), &oc); err != nil {
		return arch, oc, fmt.Errorf("trainer: optimizer: %w", err)
	}
	return arch, oc, nil
}

// batchData reads a message's x (Float32Array) and y (Int32Array) as a
// dataset of arch's shape, validated (shapes, labels, finite values).
func batchData(d js.Value, arch nn.Arch) (*data.Dataset, error) {
	x, err := float32sFromJS(d.Get("x"))
	if err != nil {
		return nil, fmt.Errorf("x: %w", err)
	}
	y, err := int32sFromJS(d.Get("y"))
	if err != nil {
		return nil, fmt.Errorf("y: %w", err)
	}
	ds := &data.Dataset{Name: "batch", X: x, Y: y, Shape: arch.Input, Classes: arch.Classes}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	if ds.Len() == 0 {
		return nil, errors.New("an empty batch")
	}
	return ds, nil
}
