package netpeer

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// ObserveConfig makes a peer an observer (`peerlearn collect`): it
// registers with the signalling server as one (signal.Hello.Observer:
// never a contact, not counted among the task's peers), joins no
// overlay, trains nothing and sends no model; it connects to the
// contacts its welcome names and pulls their current models
// (observe_wire.go; the peers' side is observers.go). While it holds
// fewer than MaxPeers links it registers again every RescanEvery for
// other contacts, backing off (to maxRescanBackoff times that) while the
// registrations bring none it did not have: a task with fewer peers.
type ObserveConfig struct {
	// Accept is called once with the task the welcome brings; it returns
	// the parameter count of the task's model (models of another length
	// are refused) or an error that ends Run.
	Accept func(spec task.Spec) (numParams int, err error)
	// OnModel receives every model that arrived intact, on Run's
	// goroutine: it must not block (hand it on through a bounded queue).
	OnModel func(ObservedModel)
	// PullEvery is how often each linked peer is asked for a newer model.
	PullEvery time.Duration
	// MaxPeers bounds the peers pulled from at once.
	MaxPeers int
	// RescanEvery: registering again for other contacts while short of
	// MaxPeers links, at most this often.
	RescanEvery time.Duration
}

// DefaultObserveConfig returns the defaults; set Accept and OnModel.
func DefaultObserveConfig() ObserveConfig {
	return ObserveConfig{
		PullEvery:   2 * time.Second,  // a round of FedLay's default period
		MaxPeers:    4,                // a server hands out 3 contacts: one registration and a spare
		RescanEvery: 15 * time.Second, // past a registration's bootstrap window
	}
}

func (c *ObserveConfig) validate() error {
	switch {
	case c.Accept == nil || c.OnModel == nil:
		return errors.New("no Accept or OnModel")
	case c.PullEvery <= 0 || c.RescanEvery <= 0:
		return fmt.Errorf("PullEvery %v, RescanEvery %v", c.PullEvery, c.RescanEvery)
	case c.MaxPeers < 1 || c.MaxPeers > 64:
		return fmt.Errorf("MaxPeers %d: want 1 to 64", c.MaxPeers)
	}
	return nil
}

// ObservedModel is one model an observer pulled.
type ObservedModel struct {
	From   ident.Peer
	Round  int    // the sender's rounds trained
	Arch   string // the sender's architecture tag
	Params []float32
}

// ObserveStatus is an observer's part of Status.
type ObserveStatus struct {
	// Peers are the peers it pulls from (hex IDs, sorted).
	Peers []string `json:"peers"`
	// ModelsReceived counts models taken, Refused transfers and frames
	// refused (wrong task, length or header).
	ModelsReceived uint64 `json:"models_received"`
	Refused        uint64 `json:"refused"`
	// Registrations counts registrations with the server after the
	// first (for other contacts).
	Registrations int `json:"registrations"`
}

// watcher is an observer's state. Only Run's loop touches it.
type watcher struct {
	cfg     ObserveConfig
	params  int
	targets []ident.Peer       // the peers pulled from (at most MaxPeers)
	have    map[ident.Peer]int // the round held of each target's model
	next    time.Time          // no registration before this
	wait    time.Duration      // between registrations: RescanEvery, doubled while they bring nothing new
	pending bool
	done    chan registration
	st      ObserveStatus
}

// runObserver is Run for an observer.
func (p *Peer) runObserver(ctx context.Context) error {
	client, server, err := p.dialServer(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBootstrap, err)
	}
	p.client, p.server = client, server
	defer func() { p.client.Close() }()
	w := client.Welcome()
	if err := p.adoptTask(w.Task); err != nil {
		return err
	}
	p.cfg.Signal.Token, _ = client.Token() // presented again: a renewal, not a new admission
	oc := *p.cfg.Observe
	n, err := oc.Accept(w.Task)
	if err != nil {
		return fmt.Errorf("%w: observer: %w", ErrConfig, err)
	}
	rc := p.cfg.RTC
	rc.Identity, rc.Task, rc.ICEServers = p.cfg.Identity, p.cfg.Task, w.ICEServers
	if rc.Logf == nil {
		rc.Logf = p.cfg.Logf
	}
	mgr, err := rtc.NewManager(rc)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p.mgr = mgr
	defer mgr.Close()
	mgr.AttachSignal(client)
	if err := mgr.SetTransferLimit(min(4*int64(n), p.cfg.RTC.MaxTransferBytes)); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p.watch = &watcher{cfg: oc, params: n, have: map[ident.Peer]int{}, done: make(chan registration),
		next: time.Now().Add(oc.RescanEvery), wait: oc.RescanEvery}
	p.logf("observing %s (%d params) through %d contacts", w.Task.Name, n, len(w.Contacts))
	p.watch.adopt(w.Contacts, mgr)
	p.pull()
	p.publishObserver()

	tick := time.NewTicker(oc.PullEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			p.publishObserver()
			return nil
		case <-tick.C:
			p.pull()
			p.rescan(ctx, time.Now())
		case r := <-p.watch.done:
			p.watch.pending = false
			if r.err != nil {
				p.logf("observer: registering again: %v", r.err)
				break
			}
			old := p.client
			p.client, p.server = r.client, r.url
			mgr.AttachSignal(r.client)
			go old.Close()
			p.watch.st.Registrations++
			p.cfg.Signal.Token, _ = r.client.Token()
			p.watch.backOff(r.client.Welcome().Contacts)
			p.watch.adopt(r.client.Welcome().Contacts, mgr)
			p.pull()
		case ev := <-mgr.Events():
			p.observed(ev)
		}
		p.publishObserver()
	}
}

// maxRescanBackoff caps the back-off of registrations that bring no new
// contact.
const maxRescanBackoff = 16

// backOff doubles the wait before the next registration when contacts
// (a registration's) are all targets already, and resets it when one is
// new.
func (w *watcher) backOff(contacts []ident.Peer) {
	for _, id := range contacts {
		if !slices.Contains(w.targets, id) {
			w.wait = w.cfg.RescanEvery
			return
		}
	}
	w.wait = min(2*w.wait, maxRescanBackoff*w.cfg.RescanEvery)
}

// adopt makes the linked peers and the new contacts the targets, up to
// MaxPeers, and keeps the transport's links to them.
func (w *watcher) adopt(contacts []ident.Peer, mgr *rtc.Manager) {
	linked := mgr.Peers()
	var t []ident.Peer
	for _, id := range append(slices.Clone(w.targets), contacts...) {
		if len(t) < w.cfg.MaxPeers && !slices.Contains(t, id) && (slices.Contains(linked, id) || slices.Contains(contacts, id)) {
			t = append(t, id)
		}
	}
	w.targets = t
	for id := range w.have {
		if !slices.Contains(t, id) {
			delete(w.have, id)
		}
	}
	mgr.SetNeighbors(t)
}

// pull asks every target for a model newer than the one held (sending
// to a contact without a link opens one through the server).
func (p *Peer) pull() {
	for _, id := range p.watch.targets {
		if err := p.mgr.SendApp(id, encodePull(p.watch.have[id])); err != nil {
			p.rateLogf("observer: pull %v: %v", id, err)
		}
	}
}

// rescan registers again for other contacts while short of links.
func (p *Peer) rescan(ctx context.Context, now time.Time) {
	w := p.watch
	if w.pending || now.Before(w.next) || len(p.mgr.Peers()) >= w.cfg.MaxPeers {
		return
	}
	w.pending, w.next = true, now.Add(w.wait)
	urls, id, tid, cfg := node.Shuffled(p.cfg.servers(), p.rng()), p.cfg.Identity, p.cfg.Task, p.signalConfig()
	go func() {
		dial := func(ctx context.Context, url string) (*signal.Client, error) {
			return signal.Dial(ctx, url, id, tid, cfg)
		}
		c, url, err := dialEach(ctx, urls, dial, p.logf)
		select {
		case w.done <- registration{client: c, err: err, url: url}:
		case <-ctx.Done():
			if c != nil {
				c.Close()
			}
		}
	}()
}

// observed takes one transport event.
func (p *Peer) observed(ev rtc.Event) {
	w := p.watch
	switch ev.Type {
	case rtc.EventTransfer:
		m, err := w.model(ev, p.cfg.Task)
		if err != nil {
			w.st.Refused++
			p.rateLogf("observer: refused a transfer from %v: %v", ev.Peer, err)
			return
		}
		w.have[ev.Peer] = m.Round
		w.st.ModelsReceived++
		w.cfg.OnModel(m)
	case rtc.EventMessage:
		w.st.Refused++ // an observer takes no overlay or MEP message
	case rtc.EventDown:
		w.targets = slices.DeleteFunc(w.targets, func(id ident.Peer) bool { return id == ev.Peer })
		delete(w.have, ev.Peer)
		p.mgr.SetNeighbors(w.targets)
	}
}

// model checks a transfer from a target and reads its model.
func (w *watcher) model(ev rtc.Event, tid ident.Task) (ObservedModel, error) {
	if !slices.Contains(w.targets, ev.Peer) {
		return ObservedModel{}, errors.New("not a peer this observer pulls from")
	}
	if ev.Manifest.Task != tid {
		return ObservedModel{}, errors.New("another task's model")
	}
	h, err := decodeObserved(ev.Manifest.Meta)
	if err != nil {
		return ObservedModel{}, err
	}
	if h.NumParams != w.params || len(ev.Data) != 4*w.params {
		return ObservedModel{}, fmt.Errorf("%d params in %d bytes, the task's model has %d", h.NumParams, len(ev.Data), w.params)
	}
	params := make([]float32, w.params)
	for i := range params {
		params[i] = math.Float32frombits(binary.LittleEndian.Uint32(ev.Data[4*i:]))
		if math.IsNaN(float64(params[i])) || math.IsInf(float64(params[i]), 0) {
			return ObservedModel{}, errors.New("a parameter is not finite")
		}
	}
	return ObservedModel{From: ev.Peer, Round: h.Round, Arch: h.Arch, Params: params}, nil
}

// publishObserver refreshes an observer's status snapshot.
func (p *Peer) publishObserver() {
	st := Status{ID: p.status.ID, Task: p.status.Task, State: "observing", UptimeS: time.Since(p.started).Seconds()}
	st.Connections = hexIDs(p.mgr.Peers())
	st.RTC, st.Server = p.mgr.Stats(), p.server
	o := p.watch.st
	o.Peers = hexIDs(p.watch.targets)
	slices.Sort(o.Peers)
	st.Observe = &o
	p.smu.Lock()
	p.status = st
	p.smu.Unlock()
}
