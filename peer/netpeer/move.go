package netpeer

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
	"github.com/peerlearn/peerlearn/types/key"
)

// Moving away from a captured neighbourhood (issue #26 item 3): the peer
// core decides (node/move.go: when the neighbourhood check asks, within
// Config.Move's bounds); this file pays and moves. A key's place is
// fixed for its epoch (types/admission: H(id, salt, i)), so a new place
// is a new key pair admitted anew, at a newcomer's price: the task's
// proof of work and the server's per-address limits (a refusal is
// counted and the peer stays). With the new admission in hand, between
// two trainings, the peer leaves the old place (NDMP's Leave to its
// neighbours, whose tables drop it), and the parts bound to the key are
// built again rather than changed in place: the transport (its
// Identity signs every frame), the registration (the new client), the
// peer core (the overlay node at the new place, its Registrar and
// estimator), and the method core (Method.Moved: learn.Peer keeps its
// model, round, optimiser and data under the new ID). The old
// transport gets LeaveLinger for the Leave messages, its events
// drained, then closes.

// moveAttempts bounds the dials of a move's admission at each server.
const moveAttempts = 3

// moveOutcome is a move's new admission, back on Run's loop.
type moveOutcome struct {
	id     key.Pair
	client *signal.Client
	url    string
	err    error
}

// startMove gets a new key admitted on a goroutine of its own (the proof
// of work takes a while) and brings it back through p.moveDone.
func (p *Peer) startMove(ctx context.Context, r node.MoveRequest) {
	cfg := p.signalConfig()
	cfg.Token = nil // a new key: a new admission, whatever the old token was
	rng := p.rng()
	urls, task, plain, done := node.Shuffled(p.cfg.servers(), rng), p.cfg.Task, p.cfg.PlainPlacement, p.moveDone
	// A busy server is tried again a few times (the first registration's
	// back-off); admissions used up for this address are a failed try at
	// once: they refill in minutes, and the peer stays meanwhile.
	rc := signal.DefaultRetryConfig(rng)
	rc.Attempts = moveAttempts
	rc.Only = func(err error) bool { return signal.Busy(err) && !admissionLimited(err) }
	p.logf("move: getting a new key admitted (%s)", r.Why)
	go func() {
		var o moveOutcome
		o.id, o.err = signal.NewIdentity(nil)
		if o.err == nil {
			dial := func(ctx context.Context, url string) (*signal.Client, error) {
				return signal.DialRetry(ctx, url, o.id, task, cfg, rc, nil)
			}
			o.client, o.url, o.err = dialEach(ctx, urls, dial, p.logf)
		}
		if o.err == nil && !plain {
			if raw, k := o.client.Token(); len(raw) == 0 || k == nil {
				o.client.Close()
				o.client, o.err = nil, fmt.Errorf("%w: the signalling server issued no admission token", ErrBootstrap)
			}
		}
		select {
		case done <- o:
		case <-ctx.Done():
			if o.client != nil {
				o.client.Close()
			}
		}
	}()
}

// admissionLimited reports whether err is the server's refusal for
// admissions used up at the client's address.
func admissionLimited(err error) bool {
	var r *signal.Refusal
	return errors.As(err, &r) && r.Code == signal.CodeAdmissionLimited
}

// admitted takes a move's new admission: a refusal goes back to the
// core (counted; the peer stays), a new place is taken as soon as no
// training is out (moveWhenIdle).
func (p *Peer) admitted(o moveOutcome) {
	if o.err != nil {
		p.step(node.MoveDone{Err: o.err})
		return
	}
	p.pendingMove = &o
	p.moveWhenIdle()
}

// moveWhenIdle moves to the pending admission's place unless a training
// is out (Run calls it again when one comes back). The old place is
// left first; should that hand out a training (not expected: rounds
// start on ticks), the move waits for it.
func (p *Peer) moveWhenIdle() {
	o := p.pendingMove
	if o == nil || (p.learner != nil && p.learner.method.Busy()) {
		return
	}
	if !p.movedOut {
		p.step(node.MoveDone{ID: o.id.ID()})
		p.carried = p.n.Carry()
		if err := p.n.Leave(); err != nil {
			p.logf("move: leave: %v", err)
		}
		p.movedOut = true
		p.flush() // the Leave messages go out through the old transport
		if p.learner != nil && p.learner.method.Busy() {
			return
		}
	}
	p.pendingMove, p.movedOut = nil, false
	if err := p.moveTo(*o); err != nil {
		// Not expected (the new key and admission were checked): the
		// peer has left and cannot go on.
		p.moveErr = err
	}
}

// moveTo builds the key-bound parts again for o's identity and joins
// the overlay at its place.
func (p *Peer) moveTo(o moveOutcome) error {
	old, oldClient := p.mgr, p.client
	oldID := p.id
	p.cfg.Identity = o.id
	p.setID(o.id.ID())
	p.cancelCore()
	for seq, r := range p.dialled { // the old key's registrations
		if r.client != nil {
			go r.client.Close()
		}
		delete(p.dialled, seq)
	}
	p.client, p.server = o.client, o.url
	if err := p.adoptAdmission(o.client); err != nil {
		return err
	}
	w := o.client.Welcome()
	// The server registered the new key while the old one was still
	// registered: it may hand the old ID out as a contact, which has
	// just left.
	w.Contacts = slices.DeleteFunc(w.Contacts, func(c ident.Peer) bool { return c == oldID })
	mgr, err := p.startTransport(w, o.client)
	if err != nil {
		return err
	}
	go retire(old, oldClient, p.cfg.LeaveLinger)
	if l := p.learner; l != nil {
		if err := l.moved(p.id, mgr); err != nil {
			return err
		}
		p.limitTransfers(mgr, l.peer)
	}
	carry := p.carried
	if err := p.newCore(p.runCtx, o.url, w, &carry); err != nil {
		return err
	}
	p.logf("moved from %v: a new key and admission, joining through %d contacts", oldID, len(w.Contacts))
	if p.cfg.OnMove != nil {
		p.cfg.OnMove(o.id)
	}
	return nil
}

// retire lets the old place's Leave messages go out for linger (its
// events drained: nobody else reads them), then closes its transport
// and registration.
func retire(mgr *rtc.Manager, client *signal.Client, linger time.Duration) {
	t := time.NewTimer(linger)
	defer t.Stop()
	for {
		select {
		case <-mgr.Events():
		case <-t.C:
			mgr.Close()
			client.Close()
			return
		}
	}
}

// moved carries the learner to the new place: the method core under the
// new ID (learn.Peer keeps its model and round), the new transport, and
// a fresh wire codec (its references were the old neighbours').
func (l *learner) moved(id ident.Peer, mgr *rtc.Manager) error {
	if err := l.method.Moved(id); err != nil {
		return err
	}
	codec, err := newWireCodec(l.st.Codec)
	if err != nil {
		return err
	}
	l.self, l.mgr, l.deny, l.codec = id, mgr, mgr.Deny, codec
	return nil
}

// setID makes id the peer's ID (Run's goroutine; ID and the log read it
// from any).
func (p *Peer) setID(id ident.Peer) {
	p.id = id
	p.idNow.Store(&id)
	p.smu.Lock()
	p.status.ID = hex.EncodeToString(id[:])
	p.smu.Unlock()
}
