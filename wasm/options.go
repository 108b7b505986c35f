//go:build js && wasm

package main

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// options are newPeer's options, read from a JavaScript object:
//
//	signalURL    ws(s)://host/signal (required)
//	task         the task's 64-hex-digit ID, or its spec as JSON; "" = the
//	             signalling server's default task (mnist-fedlay)
//	dataURL      absolute URL of the data directory laid out as `make data`
//	             lays out .data (mnist/train-images-idx3-ubyte, ...); where
//	             it holds wasm/lightdata's light files for the task's
//	             partition the tab fetches its shard and a test subset only
//	shard        "K/N": train on shard K of N (default: the task's partition,
//	             the shard drawn from the peer ID, as native peers do)
//	images       Float32Array of the volunteer's own images (n*784 grey
//	             levels in [0,1], MNIST's white-on-black), with labels
//	             (Int32Array or array of n labels): train on these instead
//	seed         64 hex digits: the peer's key seed (default: a fresh key)
//	evalEveryMS  evaluate the model this often (default 3000)
//	evalSamples  test samples per evaluation (default 2000)
//	spaces       refused: the overlay's ring count L is the task's ("spaces"
//	             in the task spec), which the peer reads from the welcome
//	tickMS       overlay tick (default 100)
//	maxRoundMS   longest local round this tab accepts (default 600): rounds
//	             run without yielding, so a longer one is cut to fewer steps
//	trainer      a Worker running peer.wasm as the trainer (web/trainer.js
//	             starts it): local training and evaluation run there
//	             (trainer.go), for one peer at a time (it holds one
//	             trainer: a page has one peer); absent, on the page's thread
//	trainerKernels  that worker's f32 kernels ("simd128" or "go")
//	trainerNote  why there is no trainer worker (shown by status)
//	health       run the neighbourhood check (true/false; absent: the
//	             default for the task's rule, node.DefaultDefences: on
//	             for a clipped- rule)
//	suspend      the drift test's suspension (true/false; absent: as
//	             health; true refused for a rule that is not clipped-)
//	healthMoves  with the check: when it finds the neighbourhood
//	             captured, move to a new place (a new key, admitted anew),
//	             at most this many times a join and once every
//	             node.DefaultMoveEvery (default 0: never move;
//	             PeerLearn.defaultMoveMax is `peerlearn peer`'s usual
//	             bound); refused with health false
type options struct {
	SignalURL   string
	Task        ident.Task
	TaskName    string // for display before the welcome
	DataURL     string
	ShardK      int
	ShardN      int
	Images      []float32
	Labels      []int32
	Seed        []byte
	EvalEvery   time.Duration
	EvalSamples int
	Tick        time.Duration
	MaxRound    time.Duration
	Trainer     js.Value // a Worker, or undefined
	TrainerKern string
	TrainerNote string
	// ShareProgress: the volunteer lets the peer send the server its
	// signed summaries (netpeer.Config.ShareProgress); off unless true.
	ShareProgress bool
	// Defences: the volunteer's say on the neighbourhood check
	// (node.HealthOn, docs/SECURITY.md "Neighbourhood health"), the drift
	// test's suspension (node.SuspendOn) and the check's moves away from
	// a captured neighbourhood (netpeer.Config.Move), as `peerlearn peer
	// -health -suspend -health-moves`: by default the check and the
	// suspension on a clipped rule, never moving.
	Defences node.Defences
	// Files are the volunteer's picked files for a task with its own data
	// set (ownTaskData), at most data.MaxOwnFiles and data.MaxOwnBytes.
	Files []data.OwnFile
}

func parseOptions(o js.Value) (options, error) {
	opt := options{
		EvalEvery: 3 * time.Second, EvalSamples: 2000,
		Tick: 100 * time.Millisecond, MaxRound: 600 * time.Millisecond, ShardK: -1,
	}
	if o.Type() != js.TypeObject {
		return opt, fmt.Errorf("newPeer: options must be an object")
	}
	str := func(k string) string {
		v := o.Get(k)
		if v.Type() == js.TypeString {
			return strings.TrimSpace(v.String())
		}
		return ""
	}
	num := func(k string, def int) (int, error) {
		v := o.Get(k)
		switch v.Type() {
		case js.TypeUndefined, js.TypeNull:
			return def, nil
		case js.TypeNumber:
			return v.Int(), nil
		case js.TypeString:
			if v.String() == "" {
				return def, nil
			}
			return strconv.Atoi(v.String())
		}
		return 0, fmt.Errorf("%s: not a number", k)
	}
	opt.SignalURL = str("signalURL")
	if opt.SignalURL == "" {
		return opt, fmt.Errorf("newPeer: no signalURL")
	}
	if err := opt.parseTask(str("task")); err != nil {
		return opt, err
	}
	opt.DataURL = str("dataURL")
	if opt.DataURL != "" && !strings.HasSuffix(opt.DataURL, "/") {
		opt.DataURL += "/"
	}
	if s := str("shard"); s != "" {
		ks, ns, ok := strings.Cut(s, "/")
		k, err1 := strconv.Atoi(ks)
		n, err2 := strconv.Atoi(ns)
		if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
			return opt, fmt.Errorf("shard %q: want K/N with 0 <= K < N", s)
		}
		opt.ShardK, opt.ShardN = k, n
	}
	if s := str("seed"); s != "" {
		b, err := hex.DecodeString(s)
		if err != nil || len(b) != 32 {
			return opt, fmt.Errorf("seed: want 64 hex digits")
		}
		opt.Seed = b
	}
	if im := o.Get("images"); im.Truthy() {
		n := im.Get("length").Int()
		f32 := js.Global().Get("Float32Array").New(im)
		b := js.Global().Get("Uint8Array").New(f32.Get("buffer"), f32.Get("byteOffset"), 4*n)
		raw := make([]byte, 4*n)
		js.CopyBytesToGo(raw, b)
		opt.Images = bytesToFloat32(raw)
		lb := o.Get("labels")
		if !lb.Truthy() {
			return opt, fmt.Errorf("images without labels")
		}
		m := lb.Get("length").Int()
		opt.Labels = make([]int32, m)
		for i := range m {
			opt.Labels[i] = int32(lb.Index(i).Int())
		}
	}
	if w := o.Get("trainer"); w.Truthy() {
		if !w.InstanceOf(js.Global().Get("Worker")) {
			return opt, fmt.Errorf("trainer: want the Worker web/trainer.js started")
		}
		opt.Trainer, opt.TrainerKern = w, str("trainerKernels")
	}
	opt.TrainerNote = str("trainerNote")
	if fl := o.Get("files"); fl.Truthy() {
		if err := opt.parseFiles(fl); err != nil {
			return opt, err
		}
	}
	var err error
	ms := func(k string, def time.Duration) (time.Duration, error) {
		v, err := num(k, int(def/time.Millisecond))
		return time.Duration(v) * time.Millisecond, err
	}
	if opt.EvalEvery, err = ms("evalEveryMS", opt.EvalEvery); err != nil {
		return opt, err
	}
	if opt.Tick, err = ms("tickMS", opt.Tick); err != nil {
		return opt, err
	}
	if opt.MaxRound, err = ms("maxRoundMS", opt.MaxRound); err != nil {
		return opt, err
	}
	if opt.EvalSamples, err = num("evalSamples", opt.EvalSamples); err != nil {
		return opt, err
	}
	switch v := o.Get("shareProgress"); v.Type() {
	case js.TypeUndefined, js.TypeNull:
	case js.TypeBoolean:
		opt.ShareProgress = v.Bool()
	default:
		return opt, fmt.Errorf("shareProgress: want true or false")
	}
	if opt.Defences.Health, err = choice(o, "health"); err != nil {
		return opt, err
	}
	if opt.Defences.Suspend, err = choice(o, "suspend"); err != nil {
		return opt, err
	}
	switch v := o.Get("healthMoves"); {
	case v.Type() == js.TypeUndefined || v.Type() == js.TypeNull:
	case opt.Defences.Health == node.Off:
		return opt, fmt.Errorf("healthMoves without health: only the neighbourhood check asks to move")
	case v.Type() != js.TypeNumber || v.Float() != math.Trunc(v.Float()) || v.Float() < 0 || v.Float() > math.MaxInt32:
		return opt, fmt.Errorf("healthMoves %v: want a whole number >= 0 (0: never move)", v)
	default:
		opt.Defences.Moves = v.Int()
	}
	if v := o.Get("spaces"); v.Type() != js.TypeUndefined && v.Type() != js.TypeNull {
		return opt, fmt.Errorf(`spaces: the overlay's ring count L is the task's, not a peer's: set "spaces" in the task spec (version 2); remove this option`)
	}
	switch {
	case opt.EvalEvery < 100*time.Millisecond:
		return opt, fmt.Errorf("evalEveryMS %d: want >= 100", opt.EvalEvery.Milliseconds())
	case opt.Tick < 10*time.Millisecond:
		return opt, fmt.Errorf("tickMS %d: want >= 10", opt.Tick.Milliseconds())
	case opt.MaxRound < 50*time.Millisecond:
		return opt, fmt.Errorf("maxRoundMS %d: want >= 50", opt.MaxRound.Milliseconds())
	case opt.EvalSamples < 0:
		return opt, fmt.Errorf("evalSamples %d: want >= 0", opt.EvalSamples)
	}
	return opt, nil
}

// parseTask reads a hex ID, a spec as JSON, or "" (the default task).
func (o *options) parseTask(s string) error {
	switch {
	case s == "":
		spec := task.DefaultSpec()
		spec.Name = "mnist-fedlay" // cmd/signalserver's default task
		id, err := spec.ID()
		if err != nil {
			return err
		}
		o.Task, o.TaskName = id, spec.Name
	case strings.HasPrefix(s, "{"):
		spec, err := task.ParseFor([]byte(s), node.TaskEngine{}) // refused here, not after the welcome
		if err != nil {
			return fmt.Errorf("task spec: %w", err)
		}
		id, err := spec.ID()
		if err != nil {
			return fmt.Errorf("task spec: %w", err)
		}
		o.Task, o.TaskName = id, spec.Name
	default:
		id, err := ident.ParseTask(s)
		if err != nil {
			return err // "task: malformed task ID: ..."
		}
		o.Task = id
	}
	return nil
}

func bytesToFloat32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		u := uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
		out[i] = math.Float32frombits(u)
	}
	return out
}

// parseFiles reads the "files" option: an array of {path, data}, data a
// Uint8Array, within data's limits on a volunteer's files.
func (o *options) parseFiles(fl js.Value) error {
	if fl.Type() != js.TypeObject || fl.Get("length").Type() != js.TypeNumber {
		return fmt.Errorf("files: want an array of {path, data}")
	}
	n := fl.Get("length").Int()
	if n > data.MaxOwnFiles {
		return fmt.Errorf("files: %d picked, at most %d", n, data.MaxOwnFiles)
	}
	total := 0
	for i := range n {
		f := fl.Index(i)
		p, b := f.Get("path"), f.Get("data")
		if p.Type() != js.TypeString || b.Type() != js.TypeObject || b.Get("byteLength").Type() != js.TypeNumber {
			return fmt.Errorf("files[%d]: want {path: string, data: Uint8Array}", i)
		}
		size := b.Get("byteLength").Int()
		if total += size; total > data.MaxOwnBytes {
			return fmt.Errorf("files: more than %d MB together", data.MaxOwnBytes>>20)
		}
		buf := make([]byte, size)
		js.CopyBytesToGo(buf, b)
		o.Files = append(o.Files, data.OwnFile{Path: p.String(), Data: buf})
	}
	return nil
}

// choice reads a defence's option: true, false, or absent (node.Auto).
func choice(o js.Value, name string) (node.Choice, error) {
	switch v := o.Get(name); v.Type() {
	case js.TypeUndefined, js.TypeNull:
		return node.Auto, nil
	case js.TypeBoolean:
		if v.Bool() {
			return node.On, nil
		}
		return node.Off, nil
	}
	return node.Auto, fmt.Errorf("%s: want true or false", name)
}
