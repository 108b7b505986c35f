package signal

import (
	"context"
	"crypto/ed25519"
	"errors"
	"testing"

	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestSolvePoWYields: the proof of work calls ClientConfig.Yield between
// its chunks (a browser's event loop runs there) and stops, when the
// context ends, at the next chunk. A difficulty no nonce meets keeps it
// searching; the yield ends the context at its third call.
func TestSolvePoWYields(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	yields := 0
	yield := func() {
		if yields++; yields == 3 {
			cancel()
		}
	}
	pub := make(ed25519.PublicKey, ed25519.PublicKeySize)
	_, err := solvePoW(ctx, ident.Task{}, pub, 256, yield)
	if !errors.Is(err, ErrClosed) || !errors.Is(err, context.Canceled) || yields != 3 {
		t.Fatalf("solvePoW: %v after %d yields: want it cancelled at the third", err, yields)
	}
	// A solvable difficulty still finds a valid proof through the yields.
	yields = 0
	nonce, err := solvePoW(context.Background(), ident.Task{}, pub, 14, func() { yields++ })
	if err != nil || !admission.CheckPoW(ident.Task{}, pub, nonce, 14) {
		t.Fatalf("solvePoW at 14 bits: nonce %d, %v", nonce, err)
	}
	if want := int(nonce / powChunk); yields != want {
		t.Errorf("%d yields for nonce %d: want one per chunk searched before it, %d", yields, nonce, want)
	}
}
