package admission

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// seeded returns a deterministic reader for ed25519.GenerateKey.
type seeded struct{ r *rand.ChaCha8 }

func (s seeded) Read(p []byte) (int, error) { return s.r.Read(p) }

func newSeeded(seed byte) seeded { return seeded{rand.NewChaCha8([32]byte{seed})} }

var (
	testTask = ident.Task(sha256.Sum256([]byte("task")))
	t0       = time.Unix(1_800_000_000, 0)
)

func testIssuer(t testing.TB, seed byte) *Issuer {
	t.Helper()
	_, key, err := ed25519.GenerateKey(newSeeded(seed))
	if err != nil {
		t.Fatal(err)
	}
	is, err := NewIssuer(key, [32]byte{seed}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return is
}

func testKey(t testing.TB, seed byte) ed25519.PublicKey {
	pub, _, err := ed25519.GenerateKey(newSeeded(100 + seed))
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

func policy(is *Issuer, bits int) Policy {
	return Policy{ServerKey: is.PublicKey(), Task: testTask, PoWBits: bits, Now: t0.Unix()}
}

func TestTokenRoundTripAndVerify(t *testing.T) {
	is := testIssuer(t, 1)
	pub := testKey(t, 1)
	tok, err := is.Issue(testTask, pub, 0, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	b := tok.Marshal()
	if len(b) != TokenSize {
		t.Fatalf("%d bytes", len(b))
	}
	back, err := Unmarshal(b)
	if err != nil || back != tok {
		t.Fatalf("round trip: %v", err)
	}
	if err := VerifyFor(&back, ident.PeerFromPublicKey(pub), policy(is, 0)); err != nil {
		t.Fatal(err)
	}
	// Any flipped bit breaks the signature (or the format).
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 1
		bad, err := Unmarshal(c)
		if err != nil {
			continue
		}
		if err := Verify(&bad, policy(is, 0)); err == nil {
			t.Fatalf("byte %d flipped: still verifies", i)
		}
	}
}

func TestTokenRefusals(t *testing.T) {
	is := testIssuer(t, 1)
	pub, other := testKey(t, 1), testKey(t, 2)
	tok, err := is.Issue(testTask, pub, 0, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	// A token presented for another key.
	if err := VerifyFor(&tok, ident.PeerFromPublicKey(other), policy(is, 0)); !errors.Is(err, ErrPeer) {
		t.Errorf("other key: %v", err)
	}
	// Signed by another server.
	if err := Verify(&tok, policy(testIssuer(t, 2), 0)); !errors.Is(err, ErrSignature) {
		t.Errorf("other server: %v", err)
	}
	// For another task.
	p := policy(is, 0)
	p.Task = ident.Task{1}
	if err := Verify(&tok, p); !errors.Is(err, ErrTask) {
		t.Errorf("other task: %v", err)
	}
	// Expired: valid through the next epoch, not after.
	p = policy(is, 0)
	p.Now = t0.Add(2 * time.Hour).Unix()
	if err := Verify(&tok, p); !errors.Is(err, ErrExpired) {
		t.Errorf("expired: %v", err)
	}
	p.Now = t0.Add(time.Hour).Unix()
	if err := Verify(&tok, p); err != nil {
		t.Errorf("next epoch: %v", err)
	}
	p = policy(is, 0)
	p.MinEpoch = tok.Epoch + 1
	if err := Verify(&tok, p); !errors.Is(err, ErrExpired) {
		t.Errorf("old epoch: %v", err)
	}
}

func TestPoW(t *testing.T) {
	is := testIssuer(t, 1)
	pub := testKey(t, 1)
	const bits = 10
	nonce, ok := SolvePoW(testTask, pub, bits, 0, 1<<20)
	if !ok || !CheckPoW(testTask, pub, nonce, bits) {
		t.Fatal("no solution in 2^20 tries for 10 bits")
	}
	// A nonce below the difficulty: refused by the issuer...
	weak := uint64(0)
	for CheckPoW(testTask, pub, weak, bits) {
		weak++
	}
	if _, err := is.Issue(testTask, pub, weak, bits, t0); !errors.Is(err, ErrPoW) {
		t.Fatalf("issuer took a weak proof: %v", err)
	}
	// ... and by a peer whose task asks for more than the token shows,
	// whatever difficulty the token claims.
	tok, err := is.Issue(testTask, pub, weak, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	tok.PoWBits = bits // a lie the verifier must not believe (breaks the signature anyway)
	if err := Verify(&tok, policy(is, bits)); err == nil {
		t.Fatal("weak token accepted")
	}
	tok, _ = is.Issue(testTask, pub, weak, 0, t0)
	if err := Verify(&tok, policy(is, bits)); !errors.Is(err, ErrPoW) {
		t.Fatalf("weak token under a %d-bit task: %v", bits, err)
	}
	strong, err := is.Issue(testTask, pub, nonce, bits, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(&strong, policy(is, bits)); err != nil {
		t.Fatal(err)
	}
	// The work is bound to the key: the nonce does not carry over.
	if CheckPoW(testTask, testKey(t, 2), nonce, bits) && CheckPoW(testTask, testKey(t, 3), nonce, bits) {
		t.Fatal("a proof valid for unrelated keys")
	}
	if _, err := is.Issue(testTask, pub, 0, MaxPoWBits+1, t0); !errors.Is(err, ErrConfig) {
		t.Fatalf("difficulty over the cap: %v", err)
	}
}

// TestPlacement: the admitted coordinates are the salt's, not the ID's
// alone; the same key gets the same place within an epoch and another
// one in the next epoch or from another server.
func TestPlacement(t *testing.T) {
	is := testIssuer(t, 1)
	pub := testKey(t, 1)
	a, _ := is.Issue(testTask, pub, 0, 0, t0)
	again, _ := is.Issue(testTask, pub, 0, 0, t0.Add(time.Second))
	next, _ := is.Issue(testTask, pub, 0, 0, t0.Add(time.Hour))
	other, _ := testIssuer(t, 2).Issue(testTask, pub, 0, 0, t0)
	if a.Epoch != again.Epoch || a.Salt != again.Salt {
		t.Fatal("re-admission in the same epoch moved the key")
	}
	if next.Epoch != a.Epoch+1 {
		t.Fatalf("epochs %d, %d", a.Epoch, next.Epoch)
	}
	for i := range 5 {
		c := a.Coordinate(i)
		if c != again.Coordinate(i) {
			t.Fatalf("space %d: moved within the epoch", i)
		}
		if c == next.Coordinate(i) || c == other.Coordinate(i) {
			t.Fatalf("space %d: same coordinate in another epoch or under another server", i)
		}
		// Nor is it the ID's own hash, which anyone can compute offline.
		id := a.Peer()
		var buf [36]byte
		copy(buf[:], id[:])
		buf[35] = byte(i)
		if s := sha256.Sum256(buf[:]); c == uint64(s[0])<<56|uint64(s[1])<<48|uint64(s[2])<<40|uint64(s[3])<<32|uint64(s[4])<<24|uint64(s[5])<<16|uint64(s[6])<<8|uint64(s[7]) {
			t.Fatalf("space %d: the placement is H(id, i)", i)
		}
	}
}

func TestUnmarshalRefuses(t *testing.T) {
	tok, _ := testIssuer(t, 1).Issue(testTask, testKey(t, 1), 0, 0, t0)
	b := tok.Marshal()
	for _, bad := range [][]byte{nil, b[:TokenSize-1], append(append([]byte(nil), b...), 0)} {
		if _, err := Unmarshal(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("%d bytes: %v", len(bad), err)
		}
	}
	c := append([]byte(nil), b...)
	c[0] = 2
	if _, err := Unmarshal(c); !errors.Is(err, ErrMalformed) {
		t.Errorf("version 2: %v", err)
	}
}

// TestRenewKeepsThePlace: a renewal is a token of the current epoch with
// the same salt (the same coordinates), a later expiry and a valid
// signature; in the token's own epoch it is the token itself.
func TestRenewKeepsThePlace(t *testing.T) {
	is := testIssuer(t, 1) // one-hour epochs
	pub := testKey(t, 1)
	tok, err := is.Issue(testTask, pub, 0, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	if same := is.Renew(tok, t0.Add(time.Minute)); same != tok && is.Epoch(t0.Add(time.Minute)) == tok.Epoch {
		t.Fatal("a renewal in the token's own epoch changed it")
	}
	later := t0.Add(90 * time.Minute)
	r := is.Renew(tok, later)
	if r.Epoch != is.Epoch(later) || r.Epoch <= tok.Epoch || r.NotAfter <= tok.NotAfter {
		t.Fatalf("renewal: epoch %d -> %d, not after %d -> %d", tok.Epoch, r.Epoch, tok.NotAfter, r.NotAfter)
	}
	if r.Salt != tok.Salt || r.Coordinate(0) != tok.Coordinate(0) || r.Peer() != tok.Peer() {
		t.Fatal("the renewal moved the peer")
	}
	p := policy(is, 0)
	p.Now = later.Unix()
	if err := VerifyFor(&r, ident.PeerFromPublicKey(pub), p); err != nil {
		t.Fatalf("the renewal does not verify: %v", err)
	}
	// Two epochs on, the first token has lapsed and the renewal has not.
	p.Now = t0.Add(150 * time.Minute).Unix()
	if err := VerifyFor(&tok, ident.PeerFromPublicKey(pub), p); !errors.Is(err, ErrExpired) {
		t.Fatalf("the first token two epochs on: %v", err)
	}
	if err := VerifyFor(&r, ident.PeerFromPublicKey(pub), p); err != nil {
		t.Fatalf("the renewal two epochs on: %v", err)
	}
}
