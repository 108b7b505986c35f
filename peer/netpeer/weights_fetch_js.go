//go:build js

package netpeer

import (
	"context"
	"errors"
	"fmt"
	"syscall/js"
)

// fetchWeights GETs url, at most limit bytes, with the browser's fetch:
// net/http's client would put its transport (and crypto/tls) into every
// tab's peer.wasm, 5 MB (1.1 MB gzipped) for one request.
func fetchWeights(ctx context.Context, url string, limit int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, weightsTimeout)
	defer cancel()
	resp, err := awaitPromise(ctx, js.Global().Call("fetch", url))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if st := resp.Get("status").Int(); st != 200 {
		return nil, fmt.Errorf("GET %s: HTTP %d", url, st)
	}
	if n := resp.Get("headers").Call("get", "Content-Length"); n.Type() == js.TypeString {
		var size int64
		if _, err := fmt.Sscan(n.String(), &size); err == nil && size > limit {
			return nil, fmt.Errorf("GET %s: %d bytes, more than the model's %d", url, size, limit)
		}
	}
	buf, err := awaitPromise(ctx, resp.Call("arrayBuffer"))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if int64(buf.Get("byteLength").Int()) > limit {
		return nil, fmt.Errorf("GET %s: more than the model's %d bytes", url, limit)
	}
	arr := js.Global().Get("Uint8Array").New(buf)
	b := make([]byte, arr.Get("length").Int())
	js.CopyBytesToGo(b, arr)
	return b, nil
}

// awaitPromise blocks until p settles or ctx ends. Never call it from a
// js.FuncOf callback (the event loop would deadlock).
func awaitPromise(ctx context.Context, p js.Value) (js.Value, error) {
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
			msg = js.Global().Get("String").Invoke(args[0]).String()
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
