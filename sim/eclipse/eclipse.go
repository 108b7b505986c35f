package eclipse

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Config is one measurement.
type Config struct {
	// N is the overlay size including the victim, Spaces its L.
	N, Spaces int
	// Trials is the number of victims (each with its own honest overlay).
	Trials int
	// MaxKeys bounds the keys (or admissions) of one trial; a trial that
	// reaches it counts as not finished.
	MaxKeys int
	// PoWBits is the task's proof-of-work difficulty an admission costs.
	PoWBits int
	// SubnetPerHour and SubnetBurst are the server's admission limit per
	// /24 (signal/server's default); Epoch its epoch length.
	SubnetPerHour float64
	SubnetBurst   int
	Epoch         time.Duration
	// Seed makes the run reproducible (keys, honest IDs, server keys).
	Seed uint64
}

// Trial is one victim's result.
type Trial struct {
	// KeysBefore is the keys generated to own all 2L slots under the old
	// placement; Before the time it took (native, one core).
	KeysBefore int
	Before     time.Duration
	// GroundSlotsAfter is the slots the keys of KeysBefore's winning set
	// fill once admitted under the new placement (of 2L).
	GroundSlotsAfter int
	// Admissions is what an attacker grinding after admission needs.
	Admissions int
	// Finished reports whether both searches ended within MaxKeys.
	Finished bool
}

// Result is a whole run.
type Result struct {
	Config Config
	Trials []Trial
	// PoWHashesPerSecond is the measured native SHA-256 proof-of-work
	// rate, to price an admission's work.
	PoWHashesPerSecond float64
	// KeysPerSecond is the measured native rate of the grinder's per-key
	// work (KeyRate for 200 ms, one core), the rate that
	// scripts/bench-browser.sh measures in Chromium too.
	KeysPerSecond float64
}

// gaps holds, per slot k = 2*space + side, the open arc a key's
// coordinate must fall into to take that slot from the honest holder.
type gaps struct {
	lo, hi []uint64 // clockwise from lo to hi, exclusive
}

// victimGaps computes the victim's 2L gaps among honest coordinates
// coords[j][space] (victim at index 0).
func victimGaps(coords [][]uint64, spaces int) gaps {
	g := gaps{lo: make([]uint64, 2*spaces), hi: make([]uint64, 2*spaces)}
	for s := range spaces {
		v := coords[0][s]
		pred, succ := uint64(math.MaxUint64), uint64(math.MaxUint64) // arc lengths
		for _, c := range coords[1:] {
			if d := v - c[s]; d != 0 && d < pred {
				pred = d
			}
			if d := c[s] - v; d != 0 && d < succ {
				succ = d
			}
		}
		g.lo[2*s], g.hi[2*s] = v-pred, v     // between honest pred and victim
		g.lo[2*s+1], g.hi[2*s+1] = v, v+succ // between victim and honest succ
	}
	return g
}

// hits returns the slots (bit k) whose gap holds coordinate c of space s.
func (g gaps) hits(s int, c uint64) uint32 {
	var bits uint32
	for side := range 2 {
		k := 2*s + side
		if d := c - g.lo[k]; d != 0 && d < g.hi[k]-g.lo[k] {
			bits |= 1 << k
		}
	}
	return bits
}

// Run measures cfg.Trials victims.
func Run(cfg Config) (Result, error) {
	if cfg.N < 2 || cfg.Spaces < 1 || cfg.Spaces > overlay.MaxSpaces || cfg.Trials < 1 || cfg.MaxKeys < 1 {
		return Result{}, fmt.Errorf("eclipse: bad config %+v", cfg)
	}
	if cfg.PoWBits < 0 || cfg.PoWBits > admission.MaxPoWBits {
		return Result{}, fmt.Errorf("eclipse: pow bits %d, want 0..%d", cfg.PoWBits, admission.MaxPoWBits)
	}
	keys, el := KeyRate(cfg.Spaces, 200*time.Millisecond)
	res := Result{Config: cfg, PoWHashesPerSecond: powRate(), KeysPerSecond: float64(keys) / el.Seconds()}
	for trial := range cfg.Trials {
		t, err := runTrial(cfg, cfg.Seed*1_000_003+uint64(trial))
		if err != nil {
			return res, err
		}
		res.Trials = append(res.Trials, t)
	}
	return res, nil
}

func runTrial(cfg Config, seed uint64) (Trial, error) {
	var s [32]byte
	for i := range 8 {
		s[i] = byte(seed >> (8 * i))
	}
	rng := rand.New(rand.NewChaCha8(s))
	_, serverKey, _ := ed25519.GenerateKey(keyStream{rand.NewChaCha8([32]byte{1, s[0], s[1], s[2]})})
	var secret [32]byte
	for i := range secret {
		secret[i] = byte(rng.Uint32())
	}
	is, err := admission.NewIssuer(serverKey, secret, cfg.Epoch)
	if err != nil {
		return Trial{}, err
	}
	task := ident.Task(sha256.Sum256([]byte("eclipse")))
	now := time.Unix(1_800_000_000, 0)

	// The honest overlay: victim at 0. Honest IDs are random (their keys
	// do not matter); under the new rule each is admitted.
	ids := make([]ident.Peer, cfg.N)
	oldC := make([][]uint64, cfg.N)
	newC := make([][]uint64, cfg.N)
	for j := range ids {
		for b := range ids[j] {
			ids[j][b] = byte(rng.Uint32())
		}
		oldC[j] = make([]uint64, cfg.Spaces)
		newC[j] = make([]uint64, cfg.Spaces)
		salt := is.Salt(task, ids[j][:], is.Epoch(now)) // as if ids[j] were the key
		for sp := range cfg.Spaces {
			oldC[j][sp] = uint64(overlay.Coordinate(ids[j], sp))
			newC[j][sp] = admission.Place(ids[j], salt, sp)
		}
	}
	oldGaps, newGaps := victimGaps(oldC, cfg.Spaces), victimGaps(newC, cfg.Spaces)
	all := uint32(1)<<(2*cfg.Spaces) - 1

	// Old placement: grind keys offline.
	var t Trial
	gen := NewKeyGen([32]byte{2, s[0], s[1], s[2], s[3]}, cfg.Spaces)
	var owned uint32
	var winners []ed25519.PublicKey
	start := time.Now()
	for owned != all && t.KeysBefore < cfg.MaxKeys {
		pub, coords := gen.Next()
		t.KeysBefore++
		var h uint32
		for sp, c := range coords {
			h |= oldGaps.hits(sp, c)
		}
		if h&^owned != 0 {
			owned |= h
			winners = append(winners, pub)
		}
	}
	t.Before = time.Since(start)
	finishedBefore := owned == all

	// The same keys, admitted: where do they land now?
	var landed uint32
	for _, pub := range winners {
		tok, err := is.Issue(task, pub, 0, 0, now)
		if err != nil {
			return t, err
		}
		for sp := range cfg.Spaces {
			landed |= newGaps.hits(sp, tok.Coordinate(sp))
		}
	}
	t.GroundSlotsAfter = popcount(landed)

	// New placement: one admission per key tried. The proof of work is
	// priced from the measured rate rather than solved here (at 0 bits
	// the issuer's check is the real one).
	owned = 0
	for owned != all && t.Admissions < cfg.MaxKeys {
		pub := gen.stream.next()
		tok, err := is.Issue(task, pub, 0, 0, now)
		if err != nil {
			return t, err
		}
		t.Admissions++
		for sp := range cfg.Spaces {
			owned |= newGaps.hits(sp, tok.Coordinate(sp))
		}
	}
	t.Finished = finishedBefore && owned == all
	return t, nil
}

func popcount(x uint32) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// powRate measures proof-of-work hashes per second on this core (about
// 50 ms).
func powRate() float64 {
	var task ident.Task
	pub := make([]byte, 32)
	n := 0
	start := time.Now()
	for time.Since(start) < 50*time.Millisecond {
		for range 1000 {
			admission.CheckPoW(task, pub, uint64(n), 255)
			n++
		}
	}
	return float64(n) / time.Since(start).Seconds()
}

// Median returns the median of xs (0 for none).
func Median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
