package admission

import "errors"

var (
	// ErrMalformed: a token encoding of the wrong size or version.
	ErrMalformed = errors.New("admission: malformed token")
	// ErrSignature: the server's signature does not verify, or the key
	// is not an ed25519 public key.
	ErrSignature = errors.New("admission: bad token signature")
	// ErrTask: a token for another task.
	ErrTask = errors.New("admission: token for another task")
	// ErrPeer: a token for another key than the one presented.
	ErrPeer = errors.New("admission: token for another peer")
	// ErrPoW: the proof of work is below the task's difficulty.
	ErrPoW = errors.New("admission: proof of work below difficulty")
	// ErrExpired: a token past its expiry, or of an epoch too old.
	ErrExpired = errors.New("admission: token expired")
	// ErrConfig: an issuer or policy that cannot work.
	ErrConfig = errors.New("admission: bad configuration")
)
