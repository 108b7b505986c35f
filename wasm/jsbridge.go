//go:build js && wasm

package main

import (
	"context"

	"encoding/json"
	"fmt"
	"runtime/debug"
	"syscall/js"
	"time"

	"github.com/peerlearn/peerlearn/internal/jsawait"
)

// The JavaScript side of the browser peer. Rules every function here
// follows:
//
//   - A js.FuncOf callback runs on the browser's event loop: it must not
//     block (no channel waits, no awaiting promises), so anything slow runs
//     on a goroutine that reports back through a promise or an event.
//   - Every callback and every goroutine recovers panics and reports them
//     to the page (an "error" event, or a rejected promise), so a bug shows
//     up in the error panel instead of silently killing the Go runtime.
//   - Calls into page code (the onEvent handler) are guarded: a throwing
//     handler is reported once in the browser console, never propagated.

// jsFunc wraps fn as a JavaScript function whose panics become JavaScript
// exceptions (an Error with the panic message) after being reported.
func jsFunc(name string, report func(error), fn func(this js.Value, args []js.Value) any) js.Func {
	return js.FuncOf(func(this js.Value, args []js.Value) (ret any) {
		defer func() {
			if r := recover(); r != nil {
				err := panicError(name, r)
				if report != nil {
					report(err)
				}
				ret = js.Global().Get("Promise").Call("reject", jsError(err))
			}
		}()
		return fn(this, args)
	})
}

// goSafe runs fn on a new goroutine, reporting a panic instead of
// crashing the Go runtime (which would end every peer of the tab).
func goSafe(name string, report func(error), fn func()) {
	go func() {
		defer func() {
			if r := recover(); r != nil && report != nil {
				report(panicError(name, r))
			}
		}()
		fn()
	}()
}

func panicError(name string, r any) error {
	return fmt.Errorf("internal error in %s: %v\n%s", name, r, debug.Stack())
}

// jsError converts a Go error to a JavaScript Error.
func jsError(err error) js.Value {
	return js.Global().Get("Error").New(err.Error())
}

// promise returns a JavaScript Promise settled by work, which runs on a
// goroutine (so it may block, fetch, await); a panic rejects it.
func promise(name string, report func(error), work func() (any, error)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve, reject := args[0], args[1]
		goSafe(name, func(err error) {
			if report != nil {
				report(err)
			}
			reject.Invoke(jsError(err))
		}, func() {
			v, err := work()
			if err != nil {
				reject.Invoke(jsError(err))
				return
			}
			resolve.Invoke(v)
		})
		return nil
	})
	defer executor.Release()
	return js.Global().Get("Promise").New(executor)
}

// await blocks the calling goroutine until the promise p settles
// (jsawait.Await). Never call it from a js.FuncOf callback (the event
// loop would deadlock).
func await(p js.Value) (js.Value, error) { return jsawait.Await(context.Background(), p) }

// jsString renders any JavaScript value (an Error: its message).
func jsString(v js.Value) string { return jsawait.Text(v) }

// toJS converts a Go value to a plain JavaScript object through JSON
// (status snapshots are small: this is simpler than walking them).
func toJS(v any) js.Value {
	b, err := json.Marshal(v)
	if err != nil {
		return js.ValueOf(map[string]any{"error": err.Error()})
	}
	return js.Global().Get("JSON").Call("parse", string(b))
}

// bytesToJS copies b into a new Uint8Array.
func bytesToJS(b []byte) js.Value {
	a := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}

// Yielding to the event loop. Go-wasm is single-threaded and never
// preempts: a goroutine computing keeps the browser's event loop (page
// rendering, WebRTC and WebSocket callbacks, timers) waiting until it
// blocks. yielder blocks it on a MessageChannel message: unlike a timer
// (clamped to 4 ms when nested) the message comes back right after the
// browser has run its pending tasks and, when a frame is due, rendered.
type yielder struct {
	port  js.Value
	ch    chan struct{}
	last  time.Time
	every time.Duration
	fn    js.Func
}

func newYielder(every time.Duration) *yielder {
	y := &yielder{ch: make(chan struct{}, 8), every: every, last: time.Now()}
	mc := js.Global().Get("MessageChannel").New()
	y.fn = js.FuncOf(func(js.Value, []js.Value) any {
		select {
		case y.ch <- struct{}{}:
		default:
		}
		return nil
	})
	mc.Get("port1").Set("onmessage", y.fn)
	y.port = mc.Get("port2")
	return y
}

// Yield returns to the event loop once and comes back. One goroutine
// owns a yielder.
func (y *yielder) Yield() {
	y.port.Call("postMessage", nil)
	<-y.ch
	y.last = time.Now()
}

// Maybe yields when the caller has computed for longer than the period
// since the last yield; call it between batches.
func (y *yielder) Maybe() {
	if time.Since(y.last) >= y.every {
		y.Yield()
	}
}
