package overlaynet

import (
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/sim/simnet"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Admission makes a cluster run admitted placement (overlay/records.go):
// the simulation mints every node's token itself, with a seeded issuer,
// so runs stay reproducible.
type Admission struct {
	// Issuer signs the tokens (admission.NewIssuer with a seeded key).
	Issuer *admission.Issuer
	// Task and PoWBits are the task's; Now is the admission time.
	Task    ident.Task
	PoWBits int
	Now     time.Time
}

// Mint admits key pub (solving its proof of work) and remembers its
// token; the node itself is not created (a stranger whose record a test
// can attach, or not).
func (c *Cluster) Mint(pub ed25519.PublicKey) (admission.Token, error) {
	a := c.cfg.Admission
	if a == nil {
		return admission.Token{}, fmt.Errorf("%w: cluster without admission", simnet.ErrInvalid)
	}
	nonce, ok := admission.SolvePoW(a.Task, pub, a.PoWBits, 0, 1<<32)
	if !ok {
		return admission.Token{}, fmt.Errorf("%w: no proof of work", simnet.ErrInvalid)
	}
	tok, err := a.Issuer.Issue(a.Task, pub, nonce, a.PoWBits, a.Now)
	if err != nil {
		return admission.Token{}, err
	}
	if c.tokens == nil {
		c.tokens = map[ident.Peer]admission.Token{}
	}
	c.tokens[tok.Peer()] = tok
	return tok, nil
}

// Token returns the token minted for id.
func (c *Cluster) Token(id ident.Peer) (admission.Token, bool) {
	t, ok := c.tokens[id]
	return t, ok
}

// AddAdmittedNode mints a token for pub and adds its node (AddNode),
// placed by the token.
func (c *Cluster) AddAdmittedNode(pub ed25519.PublicKey) (*overlay.Node, error) {
	tok, err := c.Mint(pub)
	if err != nil {
		return nil, err
	}
	a := c.cfg.Admission
	cfg := c.cfg.Overlay
	cfg.Admission = &overlay.Admission{
		Policy: admission.Policy{ServerKey: a.Issuer.PublicKey(), Task: a.Task, PoWBits: a.PoWBits},
		Self:   tok,
	}
	return c.addNode(tok.Peer(), cfg)
}

// Coordinate is the coordinate of id in a space as the cluster places
// it: its token's under admission, else overlay.Coordinate.
func (c *Cluster) Coordinate(id ident.Peer, space int) overlay.Coord {
	if t, ok := c.tokens[id]; ok {
		return overlay.Coord(t.Coordinate(space))
	}
	return overlay.Coordinate(id, space)
}

// nodeRand is a node's own seeded generator.
func (c *Cluster) nodeRand() *rand.Rand { return rand.New(rand.NewPCG(c.cfg.Seed, c.rng.Uint64())) }
