package netpeer

import (
	"context"

	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The registrations after the first (re-bootstrap, bridge, renewal) are
// decided by the peer core (node.Node and its Registrar); this file is
// their shell: it dials the servers a DialRequest names on a goroutine of
// its own, brings the outcome back to the core, and carries out its
// RegistrationDecision (attach the new registration, close the old; the
// core has taken its admission token if it renewed ours, and joined
// through its contacts).

// registration is the outcome of one dial, back on Run's loop.
type registration struct {
	seq    uint64
	why    node.Why
	client *signal.Client
	err    error
	url    string // the server's
}

// dial starts the registration the core asks for.
func (p *Peer) dial(ctx context.Context, d node.DialRequest) {
	seq, why, urls, id, task, cfg := d.Seq, d.Why, d.URLs, p.cfg.Identity, p.cfg.Task, p.signalConfig()
	done := p.regDone // this core's: a move replaces it (move.go)
	go func() {
		dial := func(ctx context.Context, url string) (*signal.Client, error) {
			return signal.Dial(ctx, url, id, task, cfg)
		}
		c, url, err := dialEach(ctx, urls, dial, p.logf)
		select {
		case done <- registration{seq, why, c, err, url}:
		case <-ctx.Done():
			if c != nil {
				c.Close()
			}
		}
	}()
}

// registered hands the core a dial's outcome; the client waits for its
// decision (decided).
func (p *Peer) registered(r registration) {
	var contacts []ident.Peer
	var token []byte
	if r.client != nil {
		contacts = r.client.Welcome().Contacts
		token, _ = r.client.Token()
	}
	p.dialled[r.seq] = r
	p.step(node.Registered{Seq: r.seq, Outcome: node.Outcome{Why: r.why, URL: r.url, Err: r.err, Contacts: contacts}, Token: token})
}

// decided carries out the core's decision on a dial's outcome.
func (p *Peer) decided(d node.RegistrationDecision) {
	r, ok := p.dialled[d.Seq]
	if !ok {
		return
	}
	delete(p.dialled, d.Seq)
	if !d.Adopt {
		if r.client != nil {
			go r.client.Close() // the server drops it; Close may wait seconds for the server
		}
		return
	}
	old := p.client
	p.client, p.server = r.client, r.url
	p.mgr.AttachSignal(r.client)
	if old != nil {
		go old.Close() // its connection may be dead: Close waits for the close handshake
	}
}
