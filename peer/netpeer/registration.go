package netpeer

import (
	"context"
	"time"

	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The registrations after the first (re-bootstrap, bridge, renewal) are
// decided by node.Registrar, the pure core; this file is its shell: it
// tells the registrar what the peer looks like, dials the servers a Dial
// names on a goroutine of its own, and carries out the Decision on what
// the dial brought (attach the new registration, close the old, take its
// admission token, join through its contacts).

// registration is the outcome of one dial, back on Run's loop.
type registration struct {
	why    node.Why
	client *signal.Client
	err    error
	url    string // the server's
}

// newRegistrar starts the registrar after the first registration, with
// server url whose welcome listed welcomed contacts.
func (p *Peer) newRegistrar(url string, welcomed int) error {
	r, err := node.NewRegistrar(node.RegistrarConfig{
		Servers: p.cfg.servers(), RebootstrapAfter: p.cfg.RebootstrapAfter,
		BridgeEvery: p.cfg.BridgeEvery, BridgeAlone: p.cfg.BridgeAlone, Rand: p.rng(),
	}, url, welcomed)
	if err != nil {
		return err
	}
	p.reg, p.regDone = r, make(chan registration)
	return nil
}

// registrationFacts is what the registrar sees of the peer now.
func (p *Peer) registrationFacts() node.Facts {
	now := time.Now()
	return node.Facts{
		Now: now, Left: p.node.Left(), Joined: p.node.Joined(), Neighbors: p.node.Neighbors(),
		Connections: len(p.mgr.Peers()), Remembered: p.node.Stats().Remembered, NotBack: p.node.Remembering(),
		RenewalDue: p.renewalDue(now),
	}
}

// watchRegistration is called every loop iteration: it starts the dial
// the registrar asks for, if any.
func (p *Peer) watchRegistration(ctx context.Context) {
	d, log := p.reg.Tick(p.registrationFacts())
	if d == nil {
		return
	}
	if log != "" {
		p.logf("%s", log)
	}
	why, urls, id, task, cfg := d.Why, d.URLs, p.cfg.Identity, p.cfg.Task, p.signalConfig()
	go func() {
		dial := func(ctx context.Context, url string) (*signal.Client, error) {
			return signal.Dial(ctx, url, id, task, cfg)
		}
		c, url, err := dialEach(ctx, urls, dial, p.logf)
		select {
		case p.regDone <- registration{why, c, err, url}:
		case <-ctx.Done():
			if c != nil {
				c.Close()
			}
		}
	}()
}

// registered carries out the registrar's decision on a dial's outcome.
func (p *Peer) registered(r registration) {
	var contacts []ident.Peer
	if r.client != nil {
		contacts = r.client.Welcome().Contacts
	}
	d := p.reg.Registered(node.Outcome{Why: r.why, URL: r.url, Err: r.err, Contacts: contacts}, p.registrationFacts())
	if d.CheckToken && r.client != nil {
		p.checkToken(r.client) // a renewal counts even if the peer stays
	}
	if d.Log != "" {
		p.logf("%s", d.Log)
	}
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
	if len(d.Join) > 0 {
		if err := p.joinThrough(d.Join); err != nil {
			p.logf("join: %v", err)
		}
	}
}

// joinThrough joins the overlay through the first of a welcome's
// contacts; the others are the node's contacts for its retries, should
// the first not answer (unreachable behind its NAT, or gone).
func (p *Peer) joinThrough(contacts []ident.Peer) error {
	if err := p.node.Join(contacts[0]); err != nil {
		return err
	}
	p.reg.Joining()
	for _, c := range contacts[1:] {
		p.node.AddContacts(c)
	}
	return nil
}
