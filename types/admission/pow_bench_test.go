package admission

import (
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// BenchmarkSolvePoW is the proof of work's hash rate: an op is 4096
// nonces (signal's chunk between context checks) at a difficulty no
// nonce meets, so that every one is hashed. Run it natively and with
// GOOS=js GOARCH=wasm (Go's go_js_wasm_exec: node's V8, Chromium's
// engine) to see what a tab pays for an admission, at joining and at a
// move (docs/SECURITY.md, "Neighbourhood health").
func BenchmarkSolvePoW(b *testing.B) {
	pub := make([]byte, 32)
	var task ident.Task
	for b.Loop() {
		if _, ok := SolvePoW(task, pub, 256, 0, 4096); ok {
			b.Fatal("a nonce met 256 bits")
		}
	}
}
