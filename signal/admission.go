package signal

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// powChunk is how many proof-of-work nonces are tried between checks of
// the context (about a millisecond of hashing natively).
const powChunk = 1 << 12

// solvePoW finds a proof of work of bits for the key, giving up when ctx
// ends (the server's hello deadline is the real bound: keep a task's
// difficulty well within it; 20 bits is about a second natively),
// calling yield, if not nil, between chunks (ClientConfig.Yield).
func solvePoW(ctx context.Context, t ident.Task, pub ed25519.PublicKey, bits int, yield func()) (uint64, error) {
	if bits <= 0 {
		return 0, nil
	}
	for start := uint64(0); ; start += powChunk {
		if nonce, ok := admission.SolvePoW(t, pub, bits, start, powChunk); ok {
			return nonce, nil
		}
		if yield != nil {
			yield() // ClientConfig.Yield: a browser's event loop runs
		}
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("%w: proof of work of %d bits: %w", ErrClosed, bits, err)
		}
	}
}

// VerifyKey returns the key that signs the task's tokens: the spec's
// when it names one, else the server's from its welcome (nil if neither).
func (w *Welcome) VerifyKey() ed25519.PublicKey {
	if k := w.Task.AdmissionKey(); k != nil {
		return k
	}
	if len(w.AdmissionKey) == ed25519.PublicKeySize {
		return w.AdmissionKey
	}
	return nil
}

// checkWelcomeToken verifies the welcome's admission token, if it has
// one: signed by the task's (or the server's) key, for this peer and
// task, meeting the task's difficulty, not expired.
func checkWelcomeToken(w *Welcome, self ident.Peer, t ident.Task, now time.Time) error {
	if k := w.Task.AdmissionKey(); k != nil && len(w.AdmissionKey) != 0 && !bytes.Equal(k, w.AdmissionKey) {
		return fmt.Errorf("%w: welcome signs with another admission key than the task names", ErrProtocol)
	}
	if len(w.Token) == 0 {
		return nil
	}
	tok, err := admission.Unmarshal(w.Token)
	if err != nil {
		return fmt.Errorf("%w: welcome token: %w", ErrProtocol, err)
	}
	key := w.VerifyKey()
	if key == nil {
		return fmt.Errorf("%w: welcome token without a key to verify it", ErrProtocol)
	}
	p := admission.Policy{ServerKey: key, Task: t, PoWBits: w.Task.PoWBits(), Now: now.Unix()}
	if err := admission.VerifyFor(&tok, self, p); err != nil {
		return fmt.Errorf("%w: welcome token: %w", ErrProtocol, err)
	}
	return nil
}

// Token returns the admission token the server gave this peer (nil if
// it gave none), and the key that verifies it.
func (c *Client) Token() ([]byte, ed25519.PublicKey) {
	return bytes.Clone(c.welcome.Token), c.welcome.VerifyKey()
}
