package server

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net/netip"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestWelcomeToken: every welcome carries a token for the peer's key,
// signed by the key the welcome names; presenting it again (a re-join)
// renews it without a new admission.
func TestWelcomeToken(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.Admission.Exempt = nil; c.Admission.IPBurst = 1 })
	c := dial(t, ts, 1)
	tokBytes, key := c.Token()
	if len(tokBytes) != admission.TokenSize || len(key) != ed25519.PublicKeySize {
		t.Fatalf("token of %d bytes, key of %d", len(tokBytes), len(key))
	}
	tok, err := admission.Unmarshal(tokBytes)
	if err != nil {
		t.Fatal(err)
	}
	p := admission.Policy{ServerKey: key, Task: ts.tid, Now: time.Now().Unix()}
	if err := admission.VerifyFor(&tok, c.ID(), p); err != nil {
		t.Fatal(err)
	}
	// A token for another key is refused by the peer's own check.
	if err := admission.VerifyFor(&tok, identity(t, 2).ID(), p); !errors.Is(err, admission.ErrPeer) {
		t.Fatalf("token accepted for another key: %v", err)
	}
	c.Close()
	// The IP's one admission is used up: a re-join with the token passes,
	// a new key does not.
	cfg := clientConfig()
	cfg.Token = tokBytes
	again, err := signal.Dial(context.Background(), ts.wsURL(), identity(t, 1), ts.tid, cfg)
	if err != nil {
		t.Fatalf("re-join with a token: %v", err)
	}
	defer again.Close()
	if b, _ := again.Token(); !slices.Equal(b, tokBytes) {
		t.Fatal("re-join moved the peer (another token)")
	}
	_, err = signal.Dial(context.Background(), ts.wsURL(), identity(t, 3), ts.tid, clientConfig())
	if !errors.Is(err, &signal.Refusal{Code: signal.CodeAdmissionLimited}) {
		t.Fatalf("a second new key from one IP with burst 1: %v", err)
	}
	// Someone else's token does not admit a new key either.
	cfg.Token = tokBytes
	_, err = signal.Dial(context.Background(), ts.wsURL(), identity(t, 4), ts.tid, cfg)
	if !errors.Is(err, &signal.Refusal{Code: signal.CodeAdmissionLimited}) {
		t.Fatalf("a new key with another's token: %v", err)
	}
}

// TestProofOfWork: a task's difficulty is asked for in the challenge,
// checked in the hello and again by the client in the token.
func TestProofOfWork(t *testing.T) {
	const bits = 10
	ts := startServer(t, func(c *Config) { c.Tasks[0].Admission = &task.Admission{PoWBits: bits} })
	r, _, err := dialRaw(t, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch := r.mustRead(signal.MsgChallenge)
	if ch.Challenge.PoWBits != bits {
		t.Fatalf("challenge asks for %d bits", ch.Challenge.PoWBits)
	}
	id := identity(t, 1)
	h := signal.SignHello(id, ch.Challenge.Nonce, ts.tid)
	for admission.CheckPoW(ts.tid, id.PublicKey(), h.PoW, bits) {
		h.PoW++ // a nonce below the difficulty
	}
	if err := r.send(&signal.Message{Type: signal.MsgHello, Hello: h}); err != nil {
		t.Fatal(err)
	}
	if codes, _ := r.wantClosed(); !slices.Contains(codes, signal.CodeProofOfWork) {
		t.Fatalf("weak proof of work: %v", codes)
	}
	if n := ts.Stats().Refusals[signal.CodeProofOfWork]; n != 1 {
		t.Fatalf("%d proof-of-work refusals counted", n)
	}
	// The client solves it.
	c := dial(t, ts, 1)
	b, _ := c.Token()
	tok, _ := admission.Unmarshal(b)
	if !admission.CheckPoW(ts.tid, id.PublicKey(), tok.PoW, bits) || tok.PoWBits != bits {
		t.Fatalf("token's proof %d / %d bits", tok.PoW, tok.PoWBits)
	}
}

// TestAdmissionLimits: per IP and per /24 (/48), both charged or neither,
// refilling with time, with a bounded memory.
func TestAdmissionLimits(t *testing.T) {
	cfg := DefaultAdmission()
	cfg.Exempt = nil
	cfg.IPBurst, cfg.SubnetBurst, cfg.MaxTracked = 2, 3, 12
	a, err := newAdmitter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	ok := func(remote string) bool { code, _ := a.charge(remoteIP(remote), now); return code == 0 }
	steps := []struct {
		remote string
		want   bool
	}{
		{"10.0.0.1:1", true}, {"10.0.0.1:2", true}, {"10.0.0.1:3", false}, // the IP's burst
		{"10.0.0.2:1", true}, {"10.0.0.3:1", false}, // the /24's burst (3)
		{"10.0.1.1:1", true}, // another /24
		{"[2001:db8:1:2::1]:1", true}, {"[2001:db8:1:3::1]:1", true}, {"[2001:db8:1:4::1]:1", true},
		{"[2001:db8:1:5::1]:1", false}, // the /48's burst
		{"bogus", false},
	}
	for _, s := range steps {
		if got := ok(s.remote); got != s.want {
			t.Errorf("%s: admitted %v, want %v", s.remote, got, s.want)
		}
	}
	// A full memory: a new address is refused until buckets refill.
	cfg.MaxTracked = 2
	a, _ = newAdmitter(cfg)
	if !ok("10.0.0.1:1") || ok("192.0.2.1:1") || len(a.buckets) > 2 {
		t.Fatalf("memory of 2 buckets: %d tracked", len(a.buckets))
	}
	now = now.Add(2 * time.Hour)
	if !ok("192.0.2.1:1") || len(a.buckets) > 2 {
		t.Fatal("limits did not refill")
	}
	// Loopback is exempt by default.
	b, _ := newAdmitter(DefaultAdmission())
	for range 100 {
		if code, _ := b.charge(netip.MustParseAddr("127.0.0.1"), now); code != 0 {
			t.Fatal("loopback charged")
		}
	}
}

// TestLoadAdmissionKey: the file is created once and read back alike, so
// servers sharing it sign alike.
func TestLoadAdmissionKey(t *testing.T) {
	path := t.TempDir() + "/adm.key"
	var a, b AdmissionConfig
	if err := LoadAdmissionKey(path, &a); err != nil {
		t.Fatal(err)
	}
	if err := LoadAdmissionKey(path, &b); err != nil {
		t.Fatal(err)
	}
	if !a.Key.Equal(b.Key) || a.Secret != b.Secret || a.Secret == ([32]byte{}) {
		t.Fatal("a second load differs")
	}
	if err := os.WriteFile(path, []byte("xyz"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := LoadAdmissionKey(path, &b); !errors.Is(err, ErrConfig) {
		t.Fatalf("bad file: %v", err)
	}
}

// TestAdmitRenewsAnOldToken: a peer presenting its valid token of the
// previous epoch gets it renewed for the current one, same place, without
// paying an admission (the address has none left).
func TestAdmitRenewsAnOldToken(t *testing.T) {
	cfg := DefaultAdmission()
	cfg.Exempt, cfg.IPBurst, cfg.IPPerHour, cfg.Epoch = nil, 1, 0.001, time.Hour
	a, err := newAdmitter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	id := identity(t, 1)
	h := &signal.Hello{ID: id.ID(), Task: ident.Task{7}, PublicKey: id.PublicKey()}
	t0 := time.Unix(1_800_000_000, 0)
	raw, code, text := a.admit(netip.MustParseAddr("192.0.2.1"), h, task.Spec{}, t0)
	if code != 0 {
		t.Fatalf("first admission: %v %s", code, text)
	}
	first, _ := admission.Unmarshal(raw)
	h.Token = raw
	raw2, code, text := a.admit(netip.MustParseAddr("192.0.2.1"), h, task.Spec{}, t0.Add(90*time.Minute))
	if code != 0 {
		t.Fatalf("renewal: %v %s", code, text)
	}
	renewed, err := admission.Unmarshal(raw2)
	if err != nil || renewed.Epoch != first.Epoch+1 || renewed.Salt != first.Salt || renewed.NotAfter <= first.NotAfter {
		t.Fatalf("renewal: %v, epoch %d -> %d, same salt %v", err, first.Epoch, renewed.Epoch, renewed.Salt == first.Salt)
	}
	h.Token = nil // a new admission from the same address: none left
	if _, code, _ := a.admit(netip.MustParseAddr("192.0.2.1"), h, task.Spec{}, t0.Add(91*time.Minute)); code != signal.CodeAdmissionLimited {
		t.Fatalf("a second admission from the address: code %v", code)
	}
}
