package netpeer

import (
	"context"
	"time"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A peer cut off from the overlay (every neighbour gone and no open
// connection: it slept, was frozen as a background tab, or lost its
// network for longer than the failure timeout) cannot get back on its
// own. The overlay rejoins through a contact it remembers, but a WebRTC
// connection to that contact must be signalled over open connections,
// and there are none. So the peer registers with a signalling server
// again (the server replaces its old registration), gets fresh contacts
// and a bootstrap window, and joins through them.

//
// A peer that never had a neighbour is in the same place when none of
// its contacts answers (they left, sit behind a NAT, or are silent fakes
// registered to waste newcomers' joins): its join goes nowhere and, with
// no open connection, nothing else can reach it. So a peer that joined
// through contacts and is still without neighbour or connection after
// neverLinkedAfter registers again too, and asks for other contacts.

// rebootstrap is the isolation watch. Only Run's loop touches it.
type rebootstrap struct {
	after   time.Duration // Config.RebootstrapAfter (0: off)
	linked  bool          // had a neighbour since the last registration
	joining bool          // joined through a welcome's contacts (not the founder)
	since   time.Time     // cut off since (zero: not cut off)
	next    time.Time     // no attempt before this (backoff)
	wait    time.Duration // the backoff after the next failure
	pending bool          // an attempt is dialling
	done    chan registration
	count   int // registrations after the first (adopted ones)
}

// registration is the outcome of one attempt.
type registration struct {
	client *signal.Client
	err    error
	url    string // the server's
}

// maxRebootstrapWait caps the backoff between failed attempts.
const maxRebootstrapWait = time.Minute

// neverLinkedAfter is the least a peer that never had a neighbour waits
// for its contacts before registering again: a join through a live
// contact takes well under this even when its connection takes the
// whole of rtc's ConnectTimeout (15 s).
const neverLinkedAfter = 15 * time.Second

// watchIsolation is called every loop iteration with what the peer has
// now; it starts an attempt (a goroutine dialling the server) when the
// peer has been cut off long enough.
func (p *Peer) watchIsolation(ctx context.Context, now time.Time) {
	rb := &p.reboot
	if rb.after <= 0 || p.node.Left() {
		return
	}
	neighbours := len(p.node.Neighbors()) > 0
	if neighbours {
		rb.linked = true
	}
	if !(rb.linked || rb.joining) || !p.cutOff() {
		rb.since, rb.wait, rb.next = time.Time{}, 0, time.Time{}
		return
	}
	if rb.since.IsZero() {
		rb.since = now
	}
	after := rb.after
	if !rb.linked {
		after = max(3*rb.after, neverLinkedAfter)
	}
	if rb.pending || now.Sub(rb.since) < after || now.Before(rb.next) {
		return
	}
	rb.pending = true
	if rb.linked {
		p.logf("cut off from the overlay for %v: registering with the signalling server again", now.Sub(rb.since).Round(100*time.Millisecond))
	} else {
		p.logf("no contact answered in %v: registering with the signalling server again for other contacts", now.Sub(rb.since).Round(100*time.Millisecond))
	}
	urls, id, task, cfg := shuffled(p.cfg.servers(), p.bridge.rng), p.cfg.Identity, p.cfg.Task, p.signalConfig()
	go func() {
		dial := func(ctx context.Context, url string) (*signal.Client, error) {
			return signal.Dial(ctx, url, id, task, cfg)
		}
		c, url, err := dialEach(ctx, urls, dial, p.logf)
		select {
		case rb.done <- registration{c, err, url}:
		case <-ctx.Done():
			if c != nil {
				c.Close()
			}
		}
	}()
}

// cutOff reports whether the peer has neither a neighbour nor an open
// connection.
func (p *Peer) cutOff() bool {
	return len(p.node.Neighbors()) == 0 && len(p.mgr.Peers()) == 0
}

// registered takes an attempt's outcome: on success the new client
// replaces the old one and the overlay joins through its first contact.
// Every attempt, failed or not, pushes the next one back (doubling up to
// a minute) until the peer has neighbours again: a join through the new
// contacts can fail too.
func (p *Peer) registered(r registration) {
	rb := &p.reboot
	rb.pending = false
	rb.wait = min(max(2*rb.wait, rb.after), maxRebootstrapWait)
	rb.next = time.Now().Add(rb.wait)
	if r.err != nil {
		p.logf("registering again failed (next try in %v at the earliest): %v", rb.wait, r.err)
		return
	}
	if !p.cutOff() { // back in touch while the dial was under way
		go r.client.Close() // the server drops it; Close may wait seconds for the peer
		p.logf("registered again, but no longer cut off: keeping the old registration")
		return
	}
	old := p.client
	p.client, p.server = r.client, r.url
	p.mgr.AttachSignal(r.client)
	if old != nil {
		go old.Close() // its connection may be dead: Close waits for the close handshake
	}
	rb.count++
	p.checkToken(r.client)
	w := r.client.Welcome()
	p.bridge.welcomed = len(w.Contacts)
	if len(w.Contacts) == 0 {
		p.logf("registered again: no other peer is registered for the task")
		return
	}
	contacts := rotateContacts(w.Contacts, rb.count-1)
	p.logf("registered again: joining through %v (%d contacts)", contacts[0], len(contacts))
	if err := p.joinThrough(contacts); err != nil {
		p.logf("join: %v", err)
	}
}

// joinThrough joins the overlay through the first of a welcome's
// contacts; the others are the node's contacts for its retries, should
// the first not answer (unreachable behind its NAT, or gone).
func (p *Peer) joinThrough(contacts []ident.Peer) error {
	if err := p.node.Join(contacts[0]); err != nil {
		return err
	}
	p.reboot.joining = true
	for _, c := range contacts[1:] {
		p.node.AddContacts(c)
	}
	return nil
}
