//go:build js

package netpeer

import (
	"context"
	"fmt"
	"syscall/js"

	"github.com/peerlearn/peerlearn/internal/jsawait"
)

// fetchWeights GETs url, at most limit bytes, with the browser's fetch:
// net/http's client would put its transport (and crypto/tls) into every
// tab's peer.wasm, 5 MB (1.1 MB gzipped) for one request.
func fetchWeights(ctx context.Context, url string, limit int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, weightsTimeout)
	defer cancel()
	resp, err := jsawait.Await(ctx, js.Global().Call("fetch", url))
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
	buf, err := jsawait.Await(ctx, resp.Call("arrayBuffer"))
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
