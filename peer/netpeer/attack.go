//go:build attack

package netpeer

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/peerlearn/peerlearn/protocol/mep"
)

// A Byzantine peer for the end-to-end attack test (e2e_attack_test.go):
// built only with -tags attack, never into a shipped binary
// (cmd/peerlearn's TestPeerlearnDeps checks). With PEERLEARN_ATTACK set,
// every model the peer sends is its honest model times Scale (negative:
// sign-flipped, which pulls plain averaging away from what the honest
// peers learn), re-fingerprinted so that the receiver's MEP accepts it,
// and, with dataSize > 0, claims that many training samples (DecAvg and
// DecHW weigh by it), with conf > 0 that data confidence (FedLay weighs
// by it).
//
// With adaptive=blind instead of scale, every model it sends is the
// blind adaptive attack's (engine/attack.Blind, the lab's
// adaptive-blind): its honest model pushed along one fixed random
// direction (seeded from its ID) as far as clipped-fedlay with its
// default parameters still uses it at full weight, its own earlier
// models standing in for the receiver's neighbours that it cannot see.
//
// PEERLEARN_ATTACK is a comma-separated list: scale=-10,datasize=1099511627776,conf=1,
// or adaptive=blind,datasize=...,conf=... (scale and adaptive exclude
// each other).

func init() {
	spec := os.Getenv("PEERLEARN_ATTACK")
	if spec == "" {
		return
	}
	a, err := parseAttack(spec)
	if err != nil {
		fmt.Fprintf(os.Stderr, "PEERLEARN_ATTACK: %v\n", err)
		os.Exit(2)
	}
	tamper = a.apply
}

type attack struct {
	scale    float32
	dataSize uint64
	conf     float64
	blind    *blindAttack // adaptive=blind; nil otherwise
}

func parseAttack(spec string) (attack, error) {
	a := attack{scale: 1}
	scaled := false
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "adaptive":
			if v != "blind" {
				return a, fmt.Errorf("adaptive %q: want blind", v)
			}
			b, err := newBlindAttack()
			if err != nil {
				return a, err
			}
			a.blind = b
		case "scale":
			scaled = true
			f, err := strconv.ParseFloat(v, 32)
			if err != nil {
				return a, err
			}
			a.scale = float32(f)
		case "datasize":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil || n > mep.MaxDataSize {
				return a, fmt.Errorf("datasize %q: want 0 to %d", v, uint64(mep.MaxDataSize))
			}
			a.dataSize = n
		case "conf":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f > 0 && f <= 1) {
				return a, fmt.Errorf("conf %q: want (0, 1]", v)
			}
			a.conf = f
		default:
			return a, fmt.Errorf("unknown %q (want scale=F or adaptive=blind, datasize=N, conf=F)", k)
		}
	}
	if scaled && a.blind != nil {
		return a, fmt.Errorf("scale and adaptive exclude each other")
	}
	return a, nil
}

// apply rewrites an outgoing model (a copy: the peer's own stays honest).
func (a attack) apply(m *mep.Message) {
	if a.blind != nil {
		m.Params = a.blind.model(m)
	} else {
		ps := make([]float32, len(m.Params))
		for i, x := range m.Params {
			ps[i] = a.scale * x
		}
		m.Params = ps
	}
	if a.dataSize > 0 {
		m.Model.DataSize = a.dataSize
	}
	if a.conf > 0 {
		m.Model.DataConf = a.conf
	}
	m.Fingerprint = mep.FingerprintOf(m.Params, m.Hessian)
}
