package netpeer

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/protocol/pushsum"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Peer is one real-time peer. Create it with New, run it with Run (once);
// Status and StatusURL may be called at any time from any goroutine.
type Peer struct {
	cfg     Config
	id      ident.Peer                 // Run's goroutine's; a move changes it (move.go)
	idNow   atomic.Pointer[ident.Peer] // id, for any goroutine
	ln      net.Listener               // status endpoint, or nil
	running atomic.Bool

	// Owned by Run's loop.
	mgr    *rtc.Manager
	client *signal.Client // the latest registration's
	server string         // its server's URL
	// n is the peer core: the overlay node, the size estimate and the
	// registrations after the first (node.Node); Run's loop steps and
	// ticks it and carries out its Ready (flush). regDone brings a
	// dial's outcome (registration.go), dialled holds it until the core
	// decides.
	n          *node.Node
	ctx        context.Context // the core's (Run's, cancelled by a move), for the dials it asks for
	cancelCore context.CancelFunc
	runCtx     context.Context // Run's
	regDone    chan registration
	dialled    map[uint64]registration
	learner    *learner  // nil: overlay only
	summaries  summaries // ShareProgress (summary.go)
	obs        observerSet
	watch      *watcher // an observer's own state (observer.go), or nil
	started    time.Time
	sendErr    uint64 // overlay sends the transport refused
	lastErr    time.Time
	// A move (move.go): its admission comes back through moveDone; one
	// admitted waits in pendingMove for the training out to come back;
	// movedOut says the old place was left, carried is its core's Carry;
	// moveErr ends Run (a move that failed after leaving).
	moveDone    chan moveOutcome
	pendingMove *moveOutcome
	movedOut    bool
	carried     node.Carry
	moveErr     error

	smu    sync.Mutex
	status Status
}

// Status is a snapshot of a peer, refreshed by its loop every tick.
type Status struct {
	ID    string `json:"id"`    // the peer's ID, 64 hex digits
	Task  string `json:"task"`  // the task ID, hex
	State string `json:"state"` // "starting", "joining", "member" or "left"
	// UptimeS is the seconds since Run started; Ticks the overlay ticks.
	UptimeS float64 `json:"uptime_s"`
	Ticks   int64   `json:"ticks"`
	// Neighbors is the overlay neighbour set, Table the pred/succ per
	// ring space, Connections the peers with an open data channel (all
	// hex IDs, sorted).
	Neighbors   []string      `json:"neighbors"`
	Table       []AdjacentHex `json:"table"`
	Connections []string      `json:"connections"`
	// Links are the open connections with the candidate types of their
	// selected ICE pair (direct or through a TURN relay).
	Links []rtc.Link `json:"links"`
	// OverlaySent and OverlayReceived count NDMP messages by type name.
	OverlaySent     map[string]uint64 `json:"overlay_sent"`
	OverlayReceived map[string]uint64 `json:"overlay_received"`
	// OverlayRefused counts overlay messages dropped on arrival
	// (malformed, a From that is not the authenticated sender, refused
	// by the node); SendErrors sends the transport refused.
	OverlayRefused uint64 `json:"overlay_refused"`
	// RecordsRefused counts overlay messages refused for a bad peer
	// record or an ID without one (included in OverlayRefused).
	RecordsRefused uint64 `json:"records_refused"`
	SendErrors     uint64 `json:"send_errors"`
	// RTC is the transport's counters.
	RTC rtc.Stats `json:"rtc"`
	// Rebootstraps counts registrations with the signalling server after
	// the first (the peer had been cut off from the overlay).
	Rebootstraps int `json:"rebootstraps"`
	// Server is the signalling server the peer is registered with now;
	// Bridges counts moves to another server that joined through its
	// contacts (servers.go).
	Server  string `json:"server"`
	Bridges int    `json:"bridges"`
	// Placement is the ring coordinates in [0, 1) of this peer and of its
	// neighbours as it places them (hex ID -> one per space): under
	// admitted placement they come from the tokens, and only the peers
	// know them (PlacementOf).
	Placement map[string][]float64 `json:"placement,omitempty"`
	// NeighborsRemoved counts neighbours the node dropped (failed, left,
	// or replaced by closer ones): without churn, every one is a false
	// failure.
	NeighborsRemoved uint64 `json:"neighbors_removed"`
	// NeighborStalls counts neighbours failed for their silence that
	// then spoke again (a stall, not a death: a busy tab); each is
	// waited for that long and 1.5 s more next time (overlay's
	// stall.go).
	NeighborStalls uint64 `json:"neighbor_stalls"`
	// Waiting says, for a volunteer, why the peer is not running yet
	// (a busy or full signalling server; it retries by itself).
	Waiting string `json:"waiting,omitempty"`
	// ConnectFailure is the diagnosed cause of the latest failed
	// connection, with a sentence for a volunteer (rtc.Diagnose: the
	// missing relay or STUN, a symmetric NAT); absent before any failed.
	ConnectFailure *rtc.Diagnosis `json:"connect_failure,omitempty"`
	// Resources is what the transport's resource manager holds (incoming
	// transfer memory) and its limits.
	Resources rtc.ResourceUsage `json:"resources"`
	// Learn is the learning progress (nil for an overlay-only peer).
	Learn *LearnStatus `json:"learn,omitempty"`
	// InitGain is the network-size estimate and the init gain, for a
	// task with init he-gain and gain 0 (nil otherwise).
	InitGain *InitGainStatus `json:"init_gain,omitempty"`
	// Observers are the observers this peer serves its model to
	// (`peerlearn collect`, observers.go): not neighbours, never
	// aggregated. ObserverRefused counts what observers sent besides
	// pulls (models, overlay and MEP messages: refused) and pulls
	// refused.
	Observers       []ObserverStatus `json:"observers,omitempty"`
	ObserverRefused uint64           `json:"observer_refused"`
	PullsRefused    uint64           `json:"pulls_refused"`
	// Observe is an observer's own progress (Config.Observe; its State
	// is "observing").
	Observe *ObserveStatus `json:"observe,omitempty"`
	// Summaries counts the summaries sent to the signalling server
	// (nil unless Config.ShareProgress).
	Summaries *SummaryStatus `json:"summaries,omitempty"`
	// Moves counts the moves to a new place away from a captured
	// neighbourhood (Config.Move, move.go), the requests refused by
	// reason, and the IDs left (nil when moves are off and none was
	// asked).
	Moves *MoveStatus `json:"moves,omitempty"`
}

// MoveStatus is the moves' part of a status (the peer core's).
type MoveStatus = node.MoveStatus

// AdjacentHex is one ring space's predecessor and successor.
type AdjacentHex struct {
	Pred string `json:"pred"`
	Succ string `json:"succ"`
}

// New checks cfg, builds the overlay node and, if cfg.StatusAddr is set,
// opens the status listener (StatusURL tells where).
func New(cfg Config) (*Peer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	id := cfg.Identity.ID()
	if cfg.Overlay.Rand == nil {
		cfg.Overlay.Rand = rand.New(rand.NewPCG(id.Seed(), uint64(time.Now().UnixNano())))
	}
	if _, err := overlay.NewNode(id, cfg.Overlay); err != nil { // checked now; the peer core builds its own in Run
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p := &Peer{cfg: cfg, id: id}
	p.idNow.Store(&id)
	p.status = Status{ID: hex.EncodeToString(id[:]), Task: cfg.Task.Hex(), State: "starting"}
	if cfg.StatusAddr != "" {
		ln, err := listenStatus(cfg.StatusAddr)
		if err != nil {
			return nil, fmt.Errorf("%w: status listener: %w", ErrConfig, err)
		}
		p.ln = ln
	}
	return p, nil
}

// ID returns the peer's ID: a move (Config.Move) changes it.
func (p *Peer) ID() ident.Peer { return *p.idNow.Load() }

// StatusURL returns the status endpoint's URL, or "" without one.
func (p *Peer) StatusURL() string {
	if p.ln == nil {
		return ""
	}
	return "http://" + p.ln.Addr().String() + "/status"
}

// Status returns the latest snapshot.
func (p *Peer) Status() Status {
	p.smu.Lock()
	defer p.smu.Unlock()
	return p.status
}

func (p *Peer) logf(format string, args ...any) {
	if p.cfg.Logf != nil {
		p.cfg.Logf("peer %v: "+format, append([]any{p.ID()}, args...)...)
	}
}

// Run bootstraps through the signalling server, joins the overlay and
// runs the peer until ctx is cancelled; it then leaves gracefully and
// returns nil. It returns an error (wrapping ErrBootstrap) if the
// signalling server cannot be reached or refuses the peer.
func (p *Peer) Run(ctx context.Context) error {
	if !p.running.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: Run called twice", ErrState)
	}
	p.started = time.Now()
	if p.ln != nil {
		defer p.serveStatus()()
	}
	if p.cfg.Observe != nil {
		return p.runObserver(ctx)
	}
	client, server, err := p.dialServer(ctx) // waits out a busy or full server (recovery.go)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBootstrap, err)
	}
	p.client, p.server = client, server
	defer func() { p.client.Close() }() // the latest client: a rebootstrap replaces it
	w := client.Welcome()
	if err := p.adoptTask(w.Task); err != nil { // the task's L, before the node joins
		return err
	}
	if err := p.adoptAdmission(client); err != nil { // its token's place, before it joins
		return err
	}
	mgr, err := p.startTransport(w, client)
	if err != nil {
		return err
	}
	defer func() { p.mgr.Close() }() // the latest transport: a move replaces it
	var workDone chan method.Job
	var evalDone chan evalResult
	if lc := p.cfg.Learn; lc != nil {
		lp, test, err := lc.Build(w.Task, p.id)
		if err != nil {
			return fmt.Errorf("%w: learning peer: %w", ErrConfig, err)
		}
		if lp.Config().ID != p.id {
			return fmt.Errorf("%w: learning peer %v is not peer %v", ErrConfig, lp.Config().ID, p.id)
		}
		if p.learner, err = newLearner(*lc, w.Task, lp, test, mgr, p.cfg.Tick, p.logf); err != nil {
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
		workDone, evalDone = p.learner.workDone, p.learner.evalDone
		p.limitTransfers(mgr, lp) // a manifest can cost no more than the task's model (recovery.go)
		p.logf("learning %s (%s, %d params, period %d ticks, tier %v, max rounds %d)", w.Task.Name, lp.ArchTag(), lp.NumParams(), lp.Config().MEP.Period, lp.Config().MEP.Tier, w.Task.MaxRounds)
	}
	p.runCtx, p.moveDone = ctx, make(chan moveOutcome)
	if err := p.newCore(ctx, server, w, nil); err != nil { // joins through the welcome's contacts
		return err
	}
	defer func() { p.cancelCore() }() // the latest core's dials
	p.flush()
	p.publish()

	clock := tickClock{period: p.cfg.Tick, max: p.cfg.MaxCatchUpTicks, next: time.Now().Add(p.cfg.Tick)}
	tick := time.NewTicker(cmp.Or(p.cfg.wakeEvery, p.cfg.Tick)) // fires at or after clock.next
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			p.leave()
			return nil
		case <-tick.C:
			// What arrived before now counts before the ticks up to now
			// (a heartbeat waiting here must not time its sender out).
			p.handlePending(p.mgr)
		case r := <-p.regDone:
			p.registered(r)
		case wk := <-workDone:
			p.step(node.TrainDone{Job: wk, Elapsed: time.Since(p.learner.trainStart)})
			p.learner.trained(wk)
			p.moveWhenIdle() // a move that waited for this training
		case r := <-evalDone:
			p.step(node.Evaluated{Round: r.round, Accuracy: r.m.Accuracy, Loss: r.m.Loss, Err: r.err})
		case o := <-p.moveDone:
			p.admitted(o)
		case why := <-p.cfg.askMove: // nil but in tests
			p.step(node.ReplaceAsked{Why: why})
		case ev := <-p.mgr.Events():
			p.handle(ev)
			p.handlePending(p.mgr) // what else has arrived, before flushing
		}
		if p.moveErr != nil {
			return fmt.Errorf("move: %w", p.moveErr)
		}
		// The ticks due run after whatever woke the loop, not only when
		// the ticker fires. A hidden tab's timers wake about once a
		// second, later when its page is busy, but its data channels'
		// messages wake it as they arrive: were the ticks run only by the
		// timer, every heartbeat of a 2 s sleep would count at the tick
		// before it, and the 20 ticks run at once on waking would time
		// out every neighbour that kept beating (the overlay's failure
		// floor is 15 ticks).
		for range clock.due(time.Now()) {
			p.n.Tick(time.Now())
		}
		p.watchObservers(time.Now())
		p.watchSummary(time.Now())
		p.flush()
		p.publish()
	}
}

// newCore builds the peer core after the first registration with server,
// whose welcome w brought the task and the contacts to join through;
// after a move, with what the old place's core carries over.
func (p *Peer) newCore(ctx context.Context, server string, w signal.Welcome, carried *node.Carry) error {
	n, err := node.New(node.Config{
		ID: p.id, Overlay: p.cfg.Overlay, Token: p.admittedToken(), Server: server, Contacts: w.Contacts,
		Registrar: node.RegistrarConfig{
			Servers: p.cfg.servers(), RebootstrapAfter: p.cfg.RebootstrapAfter,
			BridgeEvery: p.cfg.BridgeEvery, BridgeAlone: p.cfg.BridgeAlone, Rand: p.rng(),
		},
		SizeEstimate: node.NeedsSizeEstimate(w.Task), Method: p.method(), Blocked: p.cutBlocked,
		EvalEvery: p.evalEvery(), Target: w.Task.TargetAccuracy, Move: p.cfg.Move, Carried: carried,
	}, time.Now())
	switch {
	case errors.Is(err, node.ErrConfig):
		return fmt.Errorf("%w: %w", ErrConfig, err)
	case err != nil:
		return fmt.Errorf("%w: %w", ErrBootstrap, err)
	}
	p.n = n
	p.ctx, p.cancelCore = context.WithCancel(ctx)
	if p.learner != nil {
		p.learner.core = n
	}
	p.regDone, p.dialled = make(chan registration), map[uint64]registration{}
	return nil
}

// method is the learner's method core, for the peer core to drive.
func (p *Peer) method() *node.Method {
	if p.learner == nil {
		return nil
	}
	return p.learner.method
}

// evalEvery is the period of the learner's evaluations on its test set
// (0: none).
func (p *Peer) evalEvery() time.Duration {
	if p.learner == nil {
		return 0
	}
	return p.learner.evalEvery()
}

// step hands the core one event; an error is a bug of the shell's.
func (p *Peer) step(ev node.Event) {
	if err := p.n.Step(ev); err != nil {
		p.logf("%v", err)
	}
}

// training reports whether the learner may run: a peer waiting for its
// init gain starts no round and takes part in no model exchange yet.
func (p *Peer) training() bool { return p.learner != nil && p.n.Training() }

// startTransport makes the peer's transport (p.mgr) for the task and ICE
// servers of the welcome w, attached to client for its bootstrap
// signalling.
func (p *Peer) startTransport(w signal.Welcome, client *signal.Client) (*rtc.Manager, error) {
	rc := p.cfg.RTC
	rc.Identity, rc.Task, rc.ICEServers = p.cfg.Identity, p.cfg.Task, w.ICEServers
	if rc.Logf == nil {
		rc.Logf = p.cfg.Logf
	}
	mgr, err := rtc.NewManager(rc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p.mgr = mgr
	mgr.AttachSignal(client)
	return mgr, nil
}

// handlePending handles the transport events already waiting.
func (p *Peer) handlePending(mgr *rtc.Manager) {
	for {
		select {
		case ev := <-mgr.Events():
			p.handle(ev)
		default:
			return
		}
	}
}

func (p *Peer) signalConfig() signal.ClientConfig {
	c := p.cfg.Signal
	c.Observer = p.cfg.Observe != nil
	if c.Logf == nil {
		c.Logf = p.cfg.Logf
	}
	return c
}

// leave runs NDMP's leave, gives the Leave messages time to go out and
// lets Run's defers close the connections.
func (p *Peer) leave() {
	if err := p.n.Leave(); err != nil {
		p.logf("leave: %v", err)
	}
	p.flush()
	p.publish()
	p.logf("left the overlay")
	time.Sleep(p.cfg.LeaveLinger)
}

// handle applies one transport event.
func (p *Peer) handle(ev rtc.Event) {
	pull := ev.Type == rtc.EventMessage && ev.Kind == rtc.KindApp && isObserveFrame(ev.Data)
	if p.obs.has(ev.Peer) && !pull && (ev.Type == rtc.EventTransfer || ev.Type == rtc.EventMessage) {
		// An observer pulls; it never offers a model or a message
		// that the overlay or the aggregation would take.
		p.obs.refusedFrom++
		p.rateLogf("refused a %v from observer %v", ev.Kind, ev.Peer)
		return
	}
	switch ev.Type {
	case rtc.EventMessage:
		switch {
		case ev.Kind == rtc.KindOverlay:
			p.step(node.OverlayMessage{From: ev.Peer, Data: ev.Data})
		case pull:
			p.onPull(ev.Peer, ev.Data)
		case ev.Kind == rtc.KindApp && pushsum.IsFrame(ev.Data):
			p.step(node.PushSumShare{From: ev.Peer, Data: ev.Data})
		case ev.Kind == rtc.KindApp && p.training() && p.learner.codec != nil && isCodecFrame(ev.Data):
			p.learner.onCodecFrame(ev.Peer, ev.Data)
		case ev.Kind == rtc.KindApp && p.training():
			p.step(node.ModelMessage{From: ev.Peer, Header: ev.Data})
		}
	case rtc.EventTransfer:
		if !p.training() {
			break
		}
		if params, ok := p.learner.decodeTransfer(ev.Peer, ev.Manifest, ev.Data); ok {
			p.step(node.ModelMessage{From: ev.Peer, Header: ev.Manifest.Meta, Params: params})
		}
	case rtc.EventSendFailed:
		if p.learner != nil {
			p.learner.st.TransfersFailed++
		}
		p.logf("transfer to %v failed: %v", ev.Peer, ev.Err)
	case rtc.EventUp:
		p.step(node.LinkUp{Peer: ev.Peer})
		p.logf("connection to %v open", ev.Peer)
	case rtc.EventDown:
		p.step(node.LinkDown{Peer: ev.Peer})
		if p.learner != nil && p.learner.codec != nil {
			p.learner.codec.forget(ev.Peer) // both ends start again from a full model
		}
		p.logf("connection to %v closed", ev.Peer)
	}
}

// rateLogf logs at most one message per second.
func (p *Peer) rateLogf(format string, args ...any) {
	if now := time.Now(); now.Sub(p.lastErr) >= time.Second {
		p.lastErr = now
		p.logf(format, args...)
	}
}

// flush carries out what the peer core wants done (node.Ready): its
// overlay messages and push-sum shares go to the transport, which learns
// the routes and the neighbour set; dials start; registrations are
// adopted or closed; the links of the neighbours FedLay's guard dropped
// close. The method core's messages go out, its training starts.
func (p *Peer) flush() {
	// One Ready holds all the core has queued; anything carrying it out
	// gives back (a share the transport refused: its mass returns to the
	// estimator) waits for the next flush.
	if p.n.HasReady() {
		p.carryOut(p.n.Ready())
	}
}

func (p *Peer) carryOut(rd node.Ready) {
	// Registrations first: an adopted one is attached before the Join
	// messages to its welcome's contacts go out, so that their
	// connections are signalled through the server that knows them.
	if rd.Token != nil {
		p.cfg.Signal.Token = rd.Token // the renewal: presented from now on
	}
	for _, d := range rd.Decisions {
		p.decided(d)
	}
	for _, r := range rd.Routes {
		p.mgr.NoteRoute(r.Origin, r.Via) // signalling for Origin goes back this way
	}
	for _, e := range rd.Overlay {
		if err := p.mgr.Send(e.To, e.Data); err != nil {
			p.sendErr++
			p.rateLogf("send: %v", err)
		}
	}
	for _, sh := range rd.Shares {
		if err := p.mgr.SendApp(sh.To, sh.Data); err != nil {
			p.step(node.ShareReturned{Share: sh}) // its mass is not lost
			p.rateLogf("push-sum share to %v: %v", sh.To, err)
		}
	}
	if rd.NeighborsChanged {
		p.mgr.SetNeighbors(rd.Neighbors)
	}
	for _, l := range rd.Logs {
		if l.Rated {
			p.rateLogf("%s", l.Text)
		} else {
			p.logf("%s", l.Text)
		}
	}
	for _, d := range rd.Dials {
		p.dial(p.ctx, d)
	}
	if rd.Move != nil {
		p.startMove(p.ctx, *rd.Move)
	}
	if p.learner == nil {
		return
	}
	for _, d := range rd.Denies {
		p.learner.dropped(d)
	}
	for _, s := range rd.ModelSends {
		if err := p.learner.sendModel(s); err != nil {
			p.learner.sendErr++
			p.logf("%s: send to %v: %v", p.learner.method.Name(), s.To, err)
		}
	}
	if rd.Train != nil {
		p.learner.startTraining(rd.Train)
	}
	if rd.Evaluate != nil {
		p.learner.startEval(*rd.Evaluate)
	}
}

// publish refreshes the status snapshot.
func (p *Peer) publish() {
	st := Status{ID: p.status.ID, Task: p.status.Task, Ticks: p.n.Ticks(), UptimeS: time.Since(p.started).Seconds()}
	switch {
	case p.n.Left():
		st.State = "left"
	case p.n.Joined():
		st.State = "member"
	default:
		st.State = "joining"
	}
	st.Neighbors = hexIDs(p.n.Neighbors())
	for _, a := range p.n.Table() {
		st.Table = append(st.Table, AdjacentHex{Pred: hexID(a.Pred), Succ: hexID(a.Succ)})
	}
	st.Connections = hexIDs(p.mgr.Peers())
	st.Links = p.mgr.Links()
	st.Placement = p.placement()
	ns := p.n.OverlayStats()
	st.OverlaySent, st.OverlayReceived = countsMap(ns.Sent), countsMap(ns.Received)
	st.OverlayRefused, st.SendErrors = p.n.Refused(), p.sendErr
	st.RecordsRefused = ns.BadRecords + ns.NoRecord
	st.NeighborStalls = ns.Stalls
	st.RTC = p.mgr.Stats()
	if d := st.RTC.LastFailure; d.Cause != "" {
		st.ConnectFailure = &d
	}
	st.Resources = p.mgr.Resources()
	st.Rebootstraps, st.Bridges, _ = p.n.Registrations()
	st.Server, st.NeighborsRemoved = p.server, p.n.Removed()
	if p.learner != nil {
		ls := p.learner.status()
		st.Learn = &ls
	}
	st.InitGain = p.n.InitGain()
	st.Observers = p.obs.status(time.Now())
	st.ObserverRefused, st.PullsRefused = p.obs.refusedFrom, p.obs.refusedPulls
	st.Summaries = p.summaries.status(p.cfg.ShareProgress)
	if mv := p.n.Moves(); p.cfg.Move.Max > 0 || mv.Asked > 0 {
		st.Moves = &mv
	}
	p.smu.Lock()
	p.status = st
	p.smu.Unlock()
}

func countsMap(c overlay.Counts) map[string]uint64 {
	m := map[string]uint64{}
	for t, v := range c {
		if v != 0 {
			m[overlay.MsgType(t).String()] = v
		}
	}
	return m
}

func hexID(id ident.Peer) string { return node.HexID(id) }

func hexIDs(ids []ident.Peer) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = hexID(id)
	}
	return out
}

// InitGainStatus is the network-size estimate and the init gain on
// /status (the peer core's: node.InitGainStatus).
type InitGainStatus = node.InitGainStatus
