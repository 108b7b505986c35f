//go:build js && wasm

package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"syscall/js"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/method"
)

// Resume: the page keeps this peer's session in IndexedDB (web/resume.js)
// and hands it back after a reload or a crash. The session is the
// learning peer's learn.Checkpoint (its published model, its optimiser's
// state, its rounds and samples, and for every method but FedLay's the
// method core's round and model age, method.Progress: the core resumes
// its round count and max_rounds from it) plus the CPU time it has
// given; the
// model and each optimiser buffer travel in nn's model format (magic,
// architecture name, shape checksum, CRC-32C), so a damaged or foreign
// record is refused by the checks every saved model gets:
//
//	{version: 1, task: hex, id: hex, seed: hex, arch: name, round, samples,
//	 given_ms, method_round, method_age,
//	 model: Uint8Array, optimizer: {kind, step, buffers: [Uint8Array...]}}
//
// (method_round and method_age absent: 0, a record of a page before
// them.) seed is the key seed of id, exported with it: the page keeps
// the pair, and after a move (move.go) the record is the new key's.
// importState reads no seed: the page makes the peer from it, and the
// record's id must be that peer's.
const sessionVersion = 1

// maxSessionBytes bounds one encoded vector of a record: far above any
// model a tab trains, far below what would exhaust its memory.
const maxSessionBytes = 256 << 20

// resumeState is the session's Go side (guarded by browserPeer.mu).
type resumeState struct {
	snap     *learn.Checkpoint // the latest, taken between rounds
	snapSeen int               // rounds+failures when snap was last tried
	pending  *pendingResume    // imported, applied when build makes the learner
}

type pendingResume struct {
	arch string
	sum  uint64
	ckpt learn.Checkpoint
}

// snapshot takes the learner's checkpoint once per round, between
// rounds (Checkpoint refuses while a round runs; the status loop asks
// again half a second later). Called by the status loop.
func (b *browserPeer) snapshot() {
	b.mu.Lock()
	lp, seen := b.lp, b.resume.snapSeen
	b.mu.Unlock()
	if lp == nil {
		return
	}
	mt := lp.Metrics()
	done := mt.Rounds + mt.RoundsFailed
	if done == seen || lp.Busy() {
		return
	}
	c, err := lp.Checkpoint()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lp != lp {
		return // a new join replaced the learner meanwhile
	}
	b.resume.snapSeen = done
	if err == nil {
		b.resume.snap = &c
	}
}

// exportState returns the session record of the latest checkpoint, or
// null before the first round and when its round is not after since
// (the round the page saved last: nothing new to encode).
func (b *browserPeer) exportState(since int) (js.Value, error) {
	b.mu.Lock()
	snap, cfg, lp, identity := b.resume.snap, b.lcfg, b.lp, b.identity
	b.mu.Unlock()
	if snap == nil || lp == nil || snap.Rounds <= since {
		return js.Null(), nil
	}
	sum, err := cfg.Arch.ShapeChecksum()
	if err != nil {
		return js.Null(), err
	}
	enc := func(v []float32) (js.Value, error) {
		e, err := nn.AppendEncoded(nil, cfg.Arch.Name, sum, v)
		if err != nil {
			return js.Null(), err
		}
		return bytesToJS(e), nil
	}
	model, err := enc(snap.Params)
	if err != nil {
		return js.Null(), err
	}
	bufs := js.Global().Get("Array").New()
	for _, buf := range snap.Opt.Buffers {
		v, err := enc(buf)
		if err != nil {
			return js.Null(), err
		}
		bufs.Call("push", v)
	}
	opt := js.Global().Get("Object").New()
	opt.Set("kind", snap.Opt.Kind)
	opt.Set("step", snap.Opt.Step)
	opt.Set("buffers", bufs)
	rec := js.Global().Get("Object").New()
	rec.Set("version", sessionVersion)
	rec.Set("task", b.opts.Task.Hex())
	// The key the tab runs under now, and its ID, read together: after
	// a move (move.go) the record is the new key's.
	rec.Set("id", identity.ID().Hex())
	rec.Set("seed", hex.EncodeToString(identity.Seed()))
	rec.Set("arch", cfg.Arch.Name)
	rec.Set("round", snap.Rounds)
	rec.Set("samples", float64(snap.Samples))
	rec.Set("given_ms", float64(b.ctl.given().Milliseconds()))
	rec.Set("method_round", snap.Method.Round)
	rec.Set("method_age", float64(snap.Method.Age))
	rec.Set("model", model)
	rec.Set("optimizer", opt)
	return rec, nil
}

// importState checks a session record the page read from IndexedDB and
// keeps it for the next join's learner (build). What can be checked
// before the task's spec is known is checked here: the version, that the
// record is this task's and this key's, the encodings (magic, CRC, no
// NaN), that the vectors agree with one another; the model's shape
// against the task's architecture is checked in build.
func (b *browserPeer) importState(v js.Value) error {
	if v.Type() != js.TypeObject {
		return errors.New("not a session record")
	}
	if ver, err := jsInt(v, "version", 1, 1); err != nil || ver != sessionVersion {
		return fmt.Errorf("session record version %v, this page reads %d", v.Get("version"), sessionVersion)
	}
	if t := jsStr(v, "task"); t != b.opts.Task.Hex() {
		return fmt.Errorf("the saved session is of task %.16s…, not of this task %.16s…", t, b.opts.Task.Hex())
	}
	b.mu.Lock()
	self := b.id.Hex()
	b.mu.Unlock()
	if id := jsStr(v, "id"); id != self {
		return fmt.Errorf("the saved session is of peer %.16s…, this tab's key is peer %.16s…", id, self)
	}
	round, err := jsInt(v, "round", 0, math.MaxInt32)
	if err != nil {
		return err
	}
	samples, err := jsInt(v, "samples", 0, 1<<53)
	if err != nil {
		return err
	}
	givenMS, err := jsInt(v, "given_ms", 0, 1<<53)
	if err != nil {
		return err
	}
	var mp method.Progress
	if v.Get("method_round").Type() != js.TypeUndefined || v.Get("method_age").Type() != js.TypeUndefined {
		if mp.Round, err = jsInt(v, "method_round", 0, math.MaxInt32); err != nil {
			return err
		}
		age, err := jsInt(v, "method_age", 0, 1<<53)
		if err != nil {
			return err
		}
		mp.Age = uint64(age)
	}
	h, params, err := decodeJSModel(v.Get("model"))
	if err != nil {
		return fmt.Errorf("saved model: %w", err)
	}
	if a := jsStr(v, "arch"); a != h.Arch {
		return fmt.Errorf("saved model: of architecture %q, the record says %q", h.Arch, a)
	}
	o := v.Get("optimizer")
	if o.Type() != js.TypeObject {
		return errors.New("saved optimiser state: missing")
	}
	st := nn.OptState{Kind: jsStr(o, "kind")}
	if st.Step, err = jsInt(o, "step", 0, math.MaxInt32); err != nil {
		return fmt.Errorf("saved optimiser state: %w", err)
	}
	bufs := o.Get("buffers")
	if bufs.Type() != js.TypeObject || !js.Global().Get("Array").Call("isArray", bufs).Bool() || bufs.Length() > 2 {
		return errors.New("saved optimiser state: buffers must be an array of at most 2")
	}
	for i := range bufs.Length() {
		bh, buf, err := decodeJSModel(bufs.Index(i))
		if err != nil {
			return fmt.Errorf("saved optimiser buffer %d: %w", i, err)
		}
		if bh.Arch != h.Arch || bh.ShapeChecksum != h.ShapeChecksum || bh.Count != h.Count {
			return fmt.Errorf("saved optimiser buffer %d: of another model than the saved model", i)
		}
		st.Buffers = append(st.Buffers, buf)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done != nil {
		return errors.New("import the session before joining")
	}
	b.resume.pending = &pendingResume{arch: h.Arch, sum: h.ShapeChecksum,
		ckpt: learn.Checkpoint{Rounds: round, Samples: int64(samples), Params: params, Opt: st, Method: mp}}
	b.ctl.setGiven(givenMS)
	return nil
}

// applyResume resumes the new learner from the imported session, if
// any: the model must be of the task's architecture. On any refusal the
// learner keeps its fresh model and the page hears why ("resume" event,
// ok false): it drops the record.
func (b *browserPeer) applyResume(lp *learn.Peer, cfg learn.Config) {
	b.mu.Lock()
	p := b.resume.pending
	b.resume.pending = nil
	b.mu.Unlock()
	if p == nil {
		return
	}
	err := func() error {
		sum, err := cfg.Arch.ShapeChecksum()
		if err != nil {
			return err
		}
		if p.arch != cfg.Arch.Name || p.sum != sum {
			return fmt.Errorf("the saved model is a %s (shape %016x), this task trains a %s (shape %016x)", p.arch, p.sum, cfg.Arch.Name, sum)
		}
		return lp.Resume(p.ckpt)
	}()
	if err != nil {
		b.ctl.setGiven(0)
		msg := "saved session not resumed, starting afresh: " + err.Error()
		b.logf("%s", msg)
		b.emit(map[string]any{"type": "resume", "ok": false, "message": msg})
		return
	}
	b.progress(fmt.Sprintf("resumed the saved session at round %d (method round %d, %d samples trained before)", p.ckpt.Rounds, p.ckpt.Method.Round, p.ckpt.Samples))
	b.emit(map[string]any{"type": "resume", "ok": true, "round": p.ckpt.Rounds, "method_round": p.ckpt.Method.Round})
}

// decodeJSModel decodes a Uint8Array in nn's model format.
func decodeJSModel(v js.Value) (nn.Header, []float32, error) {
	if v.Type() != js.TypeObject || !v.InstanceOf(js.Global().Get("Uint8Array")) {
		return nn.Header{}, nil, errors.New("not a Uint8Array")
	}
	n := v.Length()
	if n > maxSessionBytes {
		return nn.Header{}, nil, fmt.Errorf("%d bytes, more than %d", n, maxSessionBytes)
	}
	raw := make([]byte, n)
	js.CopyBytesToGo(raw, v)
	return nn.Decode(raw)
}

func jsStr(v js.Value, k string) string {
	if s := v.Get(k); s.Type() == js.TypeString {
		return s.String()
	}
	return ""
}

// jsInt reads an integral number field in [lo, hi].
func jsInt(v js.Value, k string, lo, hi float64) (int, error) {
	f := v.Get(k)
	if f.Type() != js.TypeNumber {
		return 0, fmt.Errorf("%s: not a number", k)
	}
	x := f.Float()
	if x != math.Trunc(x) || x < lo || x > hi {
		return 0, fmt.Errorf("%s: %v, want an integer in [%v, %v]", k, x, lo, hi)
	}
	return int(x), nil
}

// taskIDOf is PeerLearn.taskID(s): the 64-hex-digit ID of the task field
// s as newPeer reads it ("" for the server's default task, an ID or a
// spec), or an Error; the page keys saved sessions by it.
func taskIDOf(_ js.Value, args []js.Value) any {
	s := ""
	if len(args) > 0 && args[0].Type() == js.TypeString {
		s = args[0].String()
	}
	var o options
	if err := o.parseTask(strings.TrimSpace(s)); err != nil {
		return jsError(err)
	}
	return o.Task.Hex()
}
