//go:build js

// Package jsawait waits for a JavaScript promise from Go under GOOS=js:
// the one helper the tab's shell (wasm/) and the peer runtime's browser
// files (peer/netpeer's *_js.go) both need.
package jsawait

import (
	"context"
	"errors"
	"syscall/js"
)

// Await blocks the calling goroutine until p settles or ctx ends; a
// rejection's reason becomes the error's text (an Error's message). Never call it from a
// js.FuncOf callback (the event loop would deadlock).
func Await(ctx context.Context, p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any {
		var v js.Value
		if len(args) > 0 {
			v = args[0]
		}
		ch <- result{v: v}
		return nil
	})
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "promise rejected"
		if len(args) > 0 {
			msg = Text(args[0])
		}
		ch <- result{err: errors.New(msg)}
		return nil
	})
	p.Call("then", onOK, onErr)
	select {
	case r := <-ch:
		onOK.Release()
		onErr.Release()
		return r.v, r.err
	case <-ctx.Done():
		// The callbacks stay: the promise may settle later (ch is buffered).
		return js.Value{}, ctx.Err()
	}
}

// Text renders any JavaScript value (an Error: its message).
func Text(v js.Value) string {
	if v.Type() == js.TypeObject && v.Get("message").Type() == js.TypeString {
		return v.Get("message").String()
	}
	return js.Global().Get("String").Invoke(v).String()
}
