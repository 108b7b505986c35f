//go:build js && wasm

// Command wasm is the browser entry of PeerLearn (GOOS=js GOARCH=wasm). It
// exports one value to JavaScript, `PeerLearn`, and then keeps the Go
// runtime alive for callbacks.
package main

import (
	"syscall/js"

	"github.com/peerlearn/peerlearn/internal/version"
)

func main() {
	js.Global().Set("PeerLearn", js.ValueOf(map[string]any{
		"version": version.String,
	}))
	select {}
}
