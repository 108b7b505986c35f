package admission

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// DefaultEpoch is the default epoch length: a day. A token is valid for
// the rest of its epoch and the whole next one.
const DefaultEpoch = 24 * time.Hour

// Issuer signs tokens: the admission server's side. The simulator makes
// one from a seeded key and secret, so its runs stay reproducible.
type Issuer struct {
	key    ed25519.PrivateKey
	secret [32]byte
	epoch  time.Duration
}

// NewIssuer returns an issuer signing with key, deriving salts from
// secret, with epochs of the given length (DefaultEpoch when 0).
func NewIssuer(key ed25519.PrivateKey, secret [32]byte, epoch time.Duration) (*Issuer, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: signing key of %d bytes", ErrConfig, len(key))
	}
	if epoch == 0 {
		epoch = DefaultEpoch
	}
	if epoch < time.Second {
		return nil, fmt.Errorf("%w: epoch %v", ErrConfig, epoch)
	}
	return &Issuer{key: key, secret: secret, epoch: epoch}, nil
}

// PublicKey is the key peers verify tokens with (goes in the task config).
func (is *Issuer) PublicKey() ed25519.PublicKey { return is.key.Public().(ed25519.PublicKey) }

// Epoch returns the epoch number of time now.
func (is *Issuer) Epoch(now time.Time) uint32 {
	return uint32(now.Unix() / int64(is.epoch/time.Second))
}

// Salt derives the placement salt of key pub in task t and epoch e:
// HMAC-SHA256(secret, domain, t, pub, e). Deterministic, so re-admitting
// a key in the same epoch gives it the same place.
func (is *Issuer) Salt(t ident.Task, pub []byte, e uint32) [32]byte {
	m := hmac.New(sha256.New, is.secret[:])
	m.Write([]byte("peerlearn/admission salt v1\x00"))
	m.Write(t[:])
	m.Write(pub)
	m.Write(binary.BigEndian.AppendUint32(nil, e))
	var s [32]byte
	m.Sum(s[:0])
	return s
}

// Issue admits key pub to task t at time now, after checking its proof of
// work against powBits. The token expires at the end of the next epoch.
func (is *Issuer) Issue(t ident.Task, pub ed25519.PublicKey, pow uint64, powBits int, now time.Time) (Token, error) {
	if len(pub) != ed25519.PublicKeySize {
		return Token{}, fmt.Errorf("%w: public key of %d bytes", ErrSignature, len(pub))
	}
	if powBits < 0 || powBits > MaxPoWBits {
		return Token{}, fmt.Errorf("%w: difficulty %d", ErrConfig, powBits)
	}
	if !CheckPoW(t, pub, pow, powBits) {
		return Token{}, fmt.Errorf("%w: want %d bits", ErrPoW, powBits)
	}
	e := is.Epoch(now)
	secs := int64(is.epoch / time.Second)
	tok := Token{Task: t, Epoch: e, NotAfter: (int64(e)+2)*secs - 1, PoW: pow, PoWBits: uint8(powBits)}
	copy(tok.PublicKey[:], pub)
	tok.Salt = is.Salt(t, pub, e)
	copy(tok.Sig[:], ed25519.Sign(is.key, tok.signingInput()))
	return tok, nil
}

// Renew re-issues old, a token of this issuer that the caller has
// verified, for the current epoch, keeping its Salt: a peer that keeps
// renewing keeps its place in the overlay, and one that runs for days
// is not refused by newcomers once its first token's two epochs are
// over. Keeping a place does not make choosing one cheaper: every try
// at a new place is still one admission (a new key, or a key whose
// token lapsed). A token of the current epoch is returned as it is.
func (is *Issuer) Renew(old Token, now time.Time) Token {
	e := is.Epoch(now)
	if e <= old.Epoch {
		return old
	}
	secs := int64(is.epoch / time.Second)
	tok := old
	tok.Epoch, tok.NotAfter = e, (int64(e)+2)*secs-1
	copy(tok.Sig[:], ed25519.Sign(is.key, tok.signingInput()))
	return tok
}

// The signalling server's default admission limits (signal/server): a
// token bucket per client IP and one per /24 (IPv4) or /48 (IPv6) subnet.
// A campus NAT puts many volunteers behind one address, so the per-IP
// limit is not tight; the subnet limit is what prices an attacker's
// admissions (sim eclipse).
const (
	DefaultIPPerHour     = 20
	DefaultIPBurst       = 10
	DefaultSubnetPerHour = 60
	DefaultSubnetBurst   = 30
)
