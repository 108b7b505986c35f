package server

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net/netip"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/admission"
)

// AdmissionConfig configures the admission tokens the server issues with
// every welcome (types/admission): what they are signed with and how many
// new keys one address and one subnet may have admitted.
type AdmissionConfig struct {
	// Key signs the tokens. Nil: a fresh key at New, announced in every
	// welcome (a task whose spec names an admission key needs that key's
	// private half here).
	Key ed25519.PrivateKey
	// Secret derives the placement salts; the zero value: fresh at New.
	// Servers that share Key should share Secret too, so that a key gets
	// the same place whichever of them admits it.
	Secret [32]byte
	// Epoch is the epoch length (tokens live the rest of theirs and the
	// next); 0: admission.DefaultEpoch.
	Epoch time.Duration
	// IPPerHour and IPBurst: new admissions per client IP (a token
	// bucket); SubnetPerHour and SubnetBurst: per /24 (IPv4) or /48
	// (IPv6). A hello presenting a valid token of its own is not counted.
	IPPerHour     float64
	IPBurst       int
	SubnetPerHour float64
	SubnetBurst   int
	// MaxTracked bounds the addresses and subnets remembered; when full,
	// buckets that have refilled are forgotten, and if none has, new
	// addresses are refused until one does.
	MaxTracked int
	// Exempt are the client prefixes not counted (default: loopback, the
	// demo's and the tests' network). It may not overlap a trusted
	// proxy's network (Config.Proxies): a client the proxy fails to
	// forward has the proxy's address.
	Exempt []netip.Prefix
}

// DefaultAdmission returns the defaults.
func DefaultAdmission() AdmissionConfig {
	return AdmissionConfig{
		Epoch:         admission.DefaultEpoch,
		IPPerHour:     admission.DefaultIPPerHour,
		IPBurst:       admission.DefaultIPBurst,
		SubnetPerHour: admission.DefaultSubnetPerHour,
		SubnetBurst:   admission.DefaultSubnetBurst,
		MaxTracked:    100_000, // ~100 bytes each
		Exempt:        []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")},
	}
}

func (a *AdmissionConfig) validate(tasks []task.Spec) error {
	if a.Key != nil && len(a.Key) != ed25519.PrivateKeySize {
		return fmt.Errorf("%w: admission key of %d bytes", ErrConfig, len(a.Key))
	}
	if a.Epoch < 0 || (a.Epoch != 0 && a.Epoch < time.Second) {
		return fmt.Errorf("%w: admission epoch %v", ErrConfig, a.Epoch)
	}
	if !(a.IPPerHour > 0) || !(a.SubnetPerHour > 0) || a.IPBurst < 1 || a.SubnetBurst < 1 || a.MaxTracked < 1 {
		return fmt.Errorf("%w: admission limits %+v", ErrConfig, a)
	}
	for _, t := range tasks {
		k := t.AdmissionKey()
		if k == nil {
			continue
		}
		if a.Key == nil || !bytes.Equal(k, a.Key.Public().(ed25519.PublicKey)) {
			return fmt.Errorf("%w: task %s names admission key %x; configure its private key", ErrConfig, t.Name, []byte(k))
		}
	}
	return nil
}

// admitter issues tokens and counts admissions per address and subnet.
// Its maps are guarded by Server.mu.
type admitter struct {
	cfg     AdmissionConfig
	issuer  *admission.Issuer
	buckets map[netip.Prefix]*bucket // /32 or /128 for an IP, /24 or /48 for a subnet
}

func newAdmitter(cfg AdmissionConfig) (*admitter, error) {
	if cfg.Key == nil {
		_, cfg.Key, _ = ed25519.GenerateKey(rand.Reader)
	}
	if cfg.Secret == ([32]byte{}) {
		rand.Read(cfg.Secret[:])
	}
	is, err := admission.NewIssuer(cfg.Key, cfg.Secret, cfg.Epoch)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return &admitter{cfg: cfg, issuer: is, buckets: map[netip.Prefix]*bucket{}}, nil
}

// subnetOf returns the client's /24 (IPv4) or /48 (IPv6).
func subnetOf(ip netip.Addr) netip.Prefix {
	if ip.Is4() {
		return netip.PrefixFrom(ip, 24).Masked()
	}
	return netip.PrefixFrom(ip, 48).Masked()
}

// admit returns h's token: its own, renewed for the current epoch with
// the same salt (Issuer.Renew), when it presents a valid one
// of this server's key (a re-join), else a new one if the proof of work
// meets the task's difficulty and the client's address and subnet have
// admissions left. Called with Server.mu held.
func (a *admitter) admit(ip netip.Addr, h *signal.Hello, spec task.Spec, now time.Time) ([]byte, signal.Code, string) {
	bits := spec.PoWBits()
	if len(h.Token) != 0 {
		tok, err := admission.Unmarshal(h.Token)
		if err == nil {
			err = admission.VerifyFor(&tok, h.ID, admission.Policy{
				ServerKey: a.issuer.PublicKey(), Task: h.Task, PoWBits: bits, Now: now.Unix(),
				MinEpoch: a.issuer.Epoch(now) - min(a.issuer.Epoch(now), 1)})
		}
		if err == nil {
			if tok.Epoch < a.issuer.Epoch(now) {
				renewed := a.issuer.Renew(tok, now) // same place, a later expiry
				return renewed.Marshal(), 0, ""
			}
			return h.Token, 0, ""
		}
		// An expired or foreign token: admit anew, at the usual price.
	}
	if !admission.CheckPoW(h.Task, h.PublicKey, h.PoW, bits) {
		return nil, signal.CodeProofOfWork, fmt.Sprintf("proof of work below %d bits", bits)
	}
	if code, text := a.charge(ip, now); code != 0 {
		return nil, code, text
	}
	tok, err := a.issuer.Issue(h.Task, h.PublicKey, h.PoW, bits, now)
	if err != nil {
		return nil, signal.CodeProofOfWork, err.Error()
	}
	return tok.Marshal(), 0, ""
}

// charge takes one admission from the client's address and subnet
// buckets, or neither.
func (a *admitter) charge(ip netip.Addr, now time.Time) (signal.Code, string) {
	if !ip.IsValid() {
		return signal.CodeAdmissionLimited, "client address unknown"
	}
	ip = ip.Unmap().WithZone("")
	for _, p := range a.cfg.Exempt {
		if p.Contains(ip) {
			return 0, ""
		}
	}
	keys := [2]netip.Prefix{netip.PrefixFrom(ip, ip.BitLen()), subnetOf(ip)}
	rates := [2]float64{a.cfg.IPPerHour / 3600, a.cfg.SubnetPerHour / 3600}
	bursts := [2]int{a.cfg.IPBurst, a.cfg.SubnetBurst}
	var bs [2]*bucket
	for k, key := range keys {
		b := a.buckets[key]
		if b == nil {
			if len(a.buckets) >= a.cfg.MaxTracked && !a.evict(now) {
				return signal.CodeAdmissionLimited, "too many clients being admitted; try later"
			}
			nb := newBucket(rates[k], bursts[k], now)
			b = &nb
			a.buckets[key] = b
		}
		bs[k] = b
	}
	// Refill both, then take from both only if both have a token.
	for _, b := range bs {
		refill(b, now)
	}
	if bs[0].tokens < 1 || bs[1].tokens < 1 {
		return signal.CodeAdmissionLimited, fmt.Sprintf("admissions from %v (and %v) used up; try later", keys[0].Addr(), keys[1])
	}
	bs[0].tokens--
	bs[1].tokens--
	return 0, ""
}

// evict forgets buckets that have refilled (they hold no memory of past
// admissions); false if none has.
func (a *admitter) evict(now time.Time) bool {
	n := len(a.buckets)
	for key, b := range a.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*b.rate >= b.burst {
			delete(a.buckets, key)
		}
	}
	return len(a.buckets) < n
}

// refill adds the tokens earned since the bucket's last use.
func refill(b *bucket, now time.Time) {
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = min(b.burst, b.tokens+dt*b.rate)
		b.last = now
	}
}

// powBits is the difficulty a challenge asks for: the highest of the
// hosted tasks' (the hello names its task only after the challenge). A
// created task never asks more than Config.Tasks (creatable), so it is
// theirs, fixed at New.
func (s *Server) powBits() int { return s.basePoWBits }
