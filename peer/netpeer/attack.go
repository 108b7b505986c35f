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
// and, with DataSize > 0, claims that many training samples (FedLay and
// DecAvg weight by it).
//
// PEERLEARN_ATTACK is a comma-separated list: scale=-100,datasize=1099511627776.

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
}

func parseAttack(spec string) (attack, error) {
	a := attack{scale: 1}
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "scale":
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
		default:
			return a, fmt.Errorf("unknown %q (want scale=F, datasize=N)", k)
		}
	}
	return a, nil
}

// apply rewrites an outgoing model (a copy: the peer's own stays honest).
func (a attack) apply(m *mep.Message) {
	ps := make([]float32, len(m.Params))
	for i, x := range m.Params {
		ps[i] = a.scale * x
	}
	m.Params = ps
	if a.dataSize > 0 {
		m.Model.DataSize = a.dataSize
	}
	m.Fingerprint = mep.FingerprintOf(m.Params, m.Hessian)
}
