package node

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/protocol/pushsum"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Node is the peer runtime's pure core, in the style of etcd's RawNode:
// the shell (peer/netpeer: the ticker, the event loop, the rtc Manager,
// the signalling client) feeds it what it observes with Step and Tick,
// and carries out what Ready returns (send these bytes, note this route,
// follow this neighbour set, dial these servers, adopt this
// registration, scale the initial model). It owns the overlay node, the
// network-size estimate (push-sum and the init gain) and the Registrar
// (re-bootstrap, bridge and split suspicion, renewal), so every decision
// those make happens here, on the time the shell passes in. Its golden
// scripts are testdata/node-*.txt.
type Node struct {
	cfg     Config
	id      ident.Peer
	overlay *overlay.Node
	reg     *Registrar
	sizer   *sizer  // nil: the task estimates no size
	method  *Method // nil: the peer does not learn
	now     time.Time

	eval     evaluation
	links    map[ident.Peer]bool // open connections (LinkUp, LinkDown)
	nbrs     []ident.Peer        // the neighbour set Ready last handed out
	token    []byte              // the admission token the peer presents (nil: plain placement)
	notAfter int64               // its expiry (unix s), 0: none
	dialSeq  uint64

	move    mover // the move decision (move.go)
	rd      Ready // what the next Ready returns, besides the overlay's
	refused uint64
	removed uint64
}

// Config configures a Node.
type Config struct {
	ID ident.Peer
	// Overlay is the overlay node's configuration: the task's Spaces, and
	// Admission under admitted placement, whose token (Token, as the
	// server issued it) the peer presents and renews (its NotAfter is the
	// renewal's clock).
	Overlay overlay.Config
	Token   []byte
	// Registrar configures the registrations after the first; Server is
	// the first's server and Contacts its welcome's (none: the peer
	// founds the overlay).
	Registrar RegistrarConfig
	Server    string
	Contacts  []ident.Peer
	// SizeEstimate: the task needs the network size (NeedsSizeEstimate).
	SizeEstimate bool
	// Method, if not nil, is the learning peer's method core, which the
	// Node drives (NewMethod): the shell never steps or ticks it.
	Method *Method
	// EvalEvery is the period of evaluating the method core's model on
	// the shell's test set (0: never; Ready.Evaluate); Target is the
	// task's target accuracy.
	EvalEvery time.Duration
	Target    float64
	// Move bounds the moves away from a captured neighbourhood (move.go;
	// zero: never); Carried, if not nil, is what the core of the place
	// the peer moved from hands over (Node.Carry).
	Move    MoveConfig
	Carried *Carry
	// Blocked, if not nil, is a test's partition (netpeer's cuttest
	// build): overlay messages and push-sum shares to or from a peer it
	// names are dropped, as if the network between them had failed.
	Blocked func(ident.Peer) bool
}

// New returns a Node that has joined through cfg.Contacts (or founds the
// overlay), at time now.
func New(cfg Config, now time.Time) (*Node, error) {
	if cfg.Overlay.Rand == nil {
		cfg.Overlay.Rand = rand.New(rand.NewPCG(cfg.ID.Seed(), 1))
	}
	ov, err := overlay.NewNode(cfg.ID, cfg.Overlay)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	reg, err := NewRegistrar(cfg.Registrar, cfg.Server, len(cfg.Contacts))
	if err != nil {
		return nil, err
	}
	if err := cfg.Move.Validate(); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, id: cfg.ID, overlay: ov, reg: reg, method: cfg.Method, now: now, links: map[ident.Peer]bool{},
		eval: evaluation{every: cfg.EvalEvery, st: EvalStatus{Target: cfg.Target}}, move: mover{cfg: cfg.Move}}
	if a := cfg.Overlay.Admission; a != nil && len(cfg.Token) > 0 {
		n.token, n.notAfter = slices.Clone(cfg.Token), a.Self.NotAfter
	}
	if cfg.SizeEstimate {
		if n.sizer, err = newSizer(cfg.ID); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	if cfg.Carried != nil {
		n.carried(cfg.Carried)
	}
	if len(cfg.Contacts) == 0 {
		n.logf("no contacts: founding the overlay")
		return n, nil
	}
	n.logf("joining through %v (%d contacts)", cfg.Contacts[0], len(cfg.Contacts))
	if err := n.join(cfg.Contacts); err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	return n, nil
}

// Event is an input to Step.
type Event interface{ event() }

// OverlayMessage is an overlay (NDMP) message from From, as the transport
// authenticated it.
type OverlayMessage struct {
	From ident.Peer
	Data []byte
}

// PushSumShare is a push-sum frame from From.
type PushSumShare struct {
	From ident.Peer
	Data []byte
}

// ShareReturned gives back a share the transport refused (Ready.Shares),
// so that its mass is not lost.
type ShareReturned struct{ Share Share }

// LinkUp and LinkDown: a connection to Peer opened or closed.
type LinkUp struct{ Peer ident.Peer }
type LinkDown struct{ Peer ident.Peer }

// Registered is what the dial Seq (Ready.Dials) brought, with the
// admission token its server issued (nil: none).
type Registered struct {
	Seq     uint64
	Outcome Outcome
	Token   []byte
}

// ModelMessage is a method message from From: a control message (Params
// nil) or a model whose parameters the shell decoded.
type ModelMessage struct {
	From   ident.Peer
	Header []byte
	Params []float32
}

// TrainDone brings back the training Ready.Train handed out, which took
// Elapsed from hand-out to hand-back.
type TrainDone struct {
	Job     method.Job
	Elapsed time.Duration
}

func (OverlayMessage) event() {}
func (PushSumShare) event()   {}
func (ShareReturned) event()  {}
func (LinkUp) event()         {}
func (LinkDown) event()       {}
func (Registered) event()     {}
func (ModelMessage) event()   {}
func (TrainDone) event()      {}

// Envelope is an encoded message for one peer.
type Envelope struct {
	To   ident.Peer
	Data []byte
}

// Share is an encoded push-sum share (an rtc KindApp frame); one the
// transport refuses goes back with ShareReturned.
type Share struct {
	Envelope
	msg pushsum.Message
}

// RouteNote: signalling for Origin goes back through Via (the overlay
// routed a discovery, repair or route message from Origin to us that
// way).
type RouteNote struct{ Origin, Via ident.Peer }

// DialRequest asks the shell to register with the first of URLs that
// accepts and to bring the outcome back as Registered{Seq}.
type DialRequest struct {
	Seq uint64
	Dial
}

// RegistrationDecision is the Node's answer to Registered{Seq}: adopt the
// new registration (attach it, close the old) or close it. The Node has
// already taken its admission token if it was a renewal of the peer's
// (Ready.Token) and joined through its contacts.
type RegistrationDecision struct {
	Seq   uint64
	Adopt bool
}

// Log is a line for the peer's log; Rated lines (refusals an attacker can
// repeat) the shell rate-limits.
type Log struct {
	Text  string
	Rated bool
}

// Ready is what the Node wants done, in order: carry out Decisions (an
// adopted registration must be attached before the Join messages to its
// welcome's contacts go out) and present Token in the registrations from
// now on when set; send Overlay (NDMP) and Shares (push-sum, KindApp);
// note Routes; follow Neighbors when NeighborsChanged; dial Dials; close
// the links of Denies; send ModelSends; run Train and Evaluate (each on
// a goroutine of its own); start Move (move.go); log Logs.
type Ready struct {
	Overlay          []Envelope
	Shares           []Share
	Routes           []RouteNote
	NeighborsChanged bool
	Neighbors        []ident.Peer
	Added, Removed   int
	Dials            []DialRequest
	Decisions        []RegistrationDecision
	Token            []byte
	Denies           []Deny
	ModelSends       []method.Send
	Train            method.Job
	Evaluate         *EvalRequest
	Move             *MoveRequest
	Logs             []Log
}

func (n *Node) logf(format string, args ...any) {
	n.rd.Logs = append(n.rd.Logs, Log{Text: fmt.Sprintf(format, args...)})
}

func (n *Node) ratedf(format string, args ...any) {
	n.rd.Logs = append(n.rd.Logs, Log{Text: fmt.Sprintf(format, args...), Rated: true})
}

func (n *Node) blocked(id ident.Peer) bool { return n.cfg.Blocked != nil && n.cfg.Blocked(id) }

// Step applies one event. Bad input is counted and logged (rated), never
// an error: the error is only for an event the Node does not know.
func (n *Node) Step(ev Event) error {
	switch e := ev.(type) {
	case OverlayMessage:
		n.onOverlay(e.From, e.Data)
	case PushSumShare:
		n.onShare(e.From, e.Data)
	case ShareReturned:
		if n.sizer != nil {
			n.sizer.node.Returned(e.Share.msg)
		}
	case LinkUp:
		n.links[e.Peer] = true
		n.overlay.Reached(e.Peer) // not across a partition (the Registrar's split watch)
	case LinkDown:
		delete(n.links, e.Peer)
	case Registered:
		n.registered(e)
	case ModelMessage:
		if n.method != nil && n.Training() {
			n.method.Step(e.From, e.Header, e.Params)
		}
	case Evaluated:
		n.evaluated(e)
	case TrainDone:
		if n.method == nil || !n.method.busy {
			return fmt.Errorf("%w: a training nobody handed out", ErrConfig)
		}
		n.method.trained(e.Job, e.Elapsed)
		if why := n.method.out.replace; why != "" {
			n.method.out.replace = ""
			n.askMove(why)
		}
	case ReplaceAsked:
		n.askMove(e.Why)
	case MoveDone:
		return n.moveDone(e)
	default:
		return fmt.Errorf("%w: unknown event %T", ErrConfig, ev)
	}
	return nil
}

// onOverlay steps the overlay with a message from peer from (From must be
// that peer).
func (n *Node) onOverlay(from ident.Peer, b []byte) {
	m, err := overlay.Unmarshal(b)
	if err == nil && m.From != from {
		err = fmt.Errorf("overlay message from %v claims to be from %v", from, m.From)
	}
	if err == nil && n.blocked(from) {
		return
	}
	if err == nil {
		switch m.Type {
		case overlay.MsgDiscover, overlay.MsgRepair, overlay.MsgRoute:
			n.rd.Routes = append(n.rd.Routes, RouteNote{Origin: m.Origin, Via: from})
		}
		err = n.overlay.Step(m)
	}
	if err != nil && !errors.Is(err, overlay.ErrStopped) {
		n.refused++
		n.ratedf("refused an overlay message from %v: %v", from, err)
	}
}

// onShare steps the estimator with a share from peer from.
func (n *Node) onShare(from ident.Peer, b []byte) {
	s := n.sizer
	if s == nil {
		n.refused++
		n.ratedf("refused a push-sum share from %v: this task estimates no size", from)
		return
	}
	m, err := pushsum.Decode(b)
	if err == nil && m.From != from {
		err = fmt.Errorf("push-sum share from %v claims to be from %v", from, m.From)
	}
	if err == nil && n.blocked(from) {
		return
	}
	if err != nil {
		s.refused++
		n.ratedf("refused a push-sum share from %v: %v", from, err)
		return
	}
	m.To = n.id
	if err := s.node.Step(m); err != nil {
		n.ratedf("refused a push-sum share from %v: %v", from, err)
	}
}

// Tick advances the overlay and the estimator by one tick at time now,
// and asks the Registrar whether to register again.
func (n *Node) Tick(now time.Time) {
	n.now = now
	n.overlay.Tick()
	if s := n.sizer; s != nil {
		var nbrs []ident.Peer
		for _, id := range n.overlay.Neighbors() {
			if n.links[id] && !n.blocked(id) {
				nbrs = append(nbrs, id)
			}
		}
		if s.tick(nbrs) {
			r := s.node.Result()
			n.logf("network size estimate %.2f after %d rounds (converged %v, %s): init gain %.3f", s.st.Used, r.Rounds, r.Converged, s.st.State, s.st.Gain)
			if n.method != nil {
				if err := n.method.ScaleInit(s.st.Gain); err != nil {
					s.st.State = "failed" // not reached: the method has not started a round, its core was built once
					n.logf("init gain: %v", err)
				}
			}
		}
	}
	if n.method != nil && n.Training() {
		n.method.Tick()
		n.maybeEval()
	}
	n.watchRegistration()
}

// facts is what the Registrar sees of the peer now.
func (n *Node) facts() Facts {
	return Facts{
		Now: n.now, Left: n.overlay.Left(), Joined: n.overlay.Joined(), Neighbors: n.overlay.Neighbors(),
		Connections: len(n.links), Remembered: n.overlay.Stats().Remembered, NotBack: n.overlay.Remembering(),
		RenewalDue: n.notAfter != 0 && TokenDue(n.notAfter, n.now),
	}
}

func (n *Node) watchRegistration() {
	d, log := n.reg.Tick(n.facts())
	if d == nil {
		return
	}
	if log != "" {
		n.logf("%s", log)
	}
	n.dialSeq++
	n.rd.Dials = append(n.rd.Dials, DialRequest{Seq: n.dialSeq, Dial: *d})
}

// registered decides on a dial's outcome and joins through its contacts
// if the registration is adopted.
func (n *Node) registered(e Registered) {
	d := n.reg.Registered(e.Outcome, n.facts())
	if d.Log != "" {
		n.logf("%s", d.Log)
	}
	if d.CheckToken && e.Token != nil {
		n.checkToken(e.Token) // a renewal counts even if the peer stays
	}
	n.rd.Decisions = append(n.rd.Decisions, RegistrationDecision{Seq: e.Seq, Adopt: d.Adopt})
	if d.Adopt && len(d.Join) > 0 {
		if err := n.join(d.Join); err != nil {
			n.logf("join: %v", err)
		}
	}
}

// join joins the overlay through the first of a welcome's contacts; the
// others are the overlay's contacts for its retries, should the first not
// answer (unreachable behind its NAT, or gone).
func (n *Node) join(contacts []ident.Peer) error {
	if err := n.overlay.Join(contacts[0]); err != nil {
		return err
	}
	n.reg.Joining()
	for _, c := range contacts[1:] {
		n.overlay.AddContacts(c)
	}
	return nil
}

// checkToken takes the token of a later registration: a renewal of ours
// (the same place, a later epoch: admission.Issuer.Renew) replaces it, so
// that newcomers of the later epoch accept this peer's record, and moves
// the renewal's clock; another token (another server key, or ours had
// lapsed) is noted and the peer keeps the place it has, where peers that
// cannot verify its token will refuse it. Under plain placement there is
// no token to check.
func (n *Node) checkToken(raw []byte) {
	if n.token == nil || bytes.Equal(raw, n.token) {
		return
	}
	tok, err := admission.Unmarshal(raw)
	if err == nil {
		err = n.overlay.RenewRecord(tok)
	}
	if err != nil {
		n.logf("the signalling server issued another admission token; keeping the first (its place): %v", err)
		return
	}
	n.token, n.notAfter = slices.Clone(raw), tok.NotAfter
	n.rd.Token = n.token
	n.logf("admission renewed for epoch %d (the same place)", tok.Epoch)
}

// Leave runs NDMP's leave; the Leave messages are in the next Ready.
func (n *Node) Leave() error { return n.overlay.Leave() }

// HasReady reports whether Ready has anything.
func (n *Node) HasReady() bool {
	r := &n.rd
	if m := n.method; m != nil && (len(m.out.sends) > 0 || m.out.train != nil || len(m.out.deny) > 0 || len(m.out.logs) > 0 ||
		(n.Training() && m.core.HasReady())) {
		return true
	}
	return n.overlay.HasReady() || (n.sizer != nil && n.sizer.node.HasReady()) || len(r.Routes) > 0 ||
		len(r.Dials) > 0 || len(r.Decisions) > 0 || r.Token != nil || r.Evaluate != nil || r.Move != nil || len(r.Logs) > 0
}

// Ready returns what the Node wants done and forgets it: the shell
// carries all of it out before the next Step or Tick.
func (n *Node) Ready() Ready {
	rd := n.rd
	n.rd = Ready{}
	n.overlayReady(&rd)
	if m := n.method; m != nil {
		if n.Training() {
			m.collect()
		}
		rd.ModelSends, rd.Train, rd.Denies = m.out.sends, m.out.train, m.out.deny
		rd.Logs = append(rd.Logs, m.out.logs...)
		m.out = methodOut{}
	}
	return rd
}

// overlayReady adds the push-sum shares and the overlay's messages and
// neighbour changes to rd; the method core follows the neighbours.
func (n *Node) overlayReady(rd *Ready) {
	if s := n.sizer; s != nil && s.node.HasReady() {
		for _, m := range s.node.Ready() {
			b, err := pushsum.Encode(m)
			if err != nil {
				s.node.Returned(m)
				rd.Logs = append(rd.Logs, Log{Text: fmt.Sprintf("push-sum share to %v: %v", m.To, err), Rated: true})
				continue
			}
			rd.Shares = append(rd.Shares, Share{Envelope: Envelope{To: m.To, Data: b}, msg: m})
		}
	}
	if !n.overlay.HasReady() {
		return
	}
	ord := n.overlay.Ready()
	for _, m := range ord.Messages {
		if n.blocked(m.To) {
			continue // lost across a test's partition
		}
		b, err := overlay.Marshal(m)
		if err != nil {
			rd.Logs = append(rd.Logs, Log{Text: fmt.Sprintf("send: %v", err), Rated: true})
			continue
		}
		rd.Overlay = append(rd.Overlay, Envelope{To: m.To, Data: b})
	}
	n.overlay.Advance()
	if len(ord.Added) > 0 || len(ord.Removed) > 0 {
		n.removed += uint64(len(ord.Removed))
		n.nbrs = n.overlay.Neighbors()
		rd.NeighborsChanged, rd.Neighbors = true, slices.Clone(n.nbrs)
		rd.Added, rd.Removed = len(ord.Added), len(ord.Removed)
		rd.Logs = append(rd.Logs, Log{Text: fmt.Sprintf("neighbours: +%d -%d = %d", rd.Added, rd.Removed, len(n.nbrs))})
		if n.method != nil {
			n.method.SetPeers(slices.Clone(n.nbrs))
		}
	}
}

// Training reports whether a learner may run: a peer waiting for its init
// gain starts no round and takes part in no model exchange yet.
func (n *Node) Training() bool { return n.sizer == nil || n.sizer.applied }

// Method is the learning peer's method core (nil: none), for the shell's
// status.
func (n *Node) Method() *Method { return n.method }

// What the shell reads for its status.

// ID is the peer's ID.
func (n *Node) ID() ident.Peer { return n.id }

// Neighbors is the overlay's neighbour set.
func (n *Node) Neighbors() []ident.Peer { return n.overlay.Neighbors() }

// Joined, Left, Ticks, Table, OverlayStats and Coordinates read the
// overlay node.
func (n *Node) Joined() bool                                      { return n.overlay.Joined() }
func (n *Node) Left() bool                                        { return n.overlay.Left() }
func (n *Node) Ticks() int64                                      { return n.overlay.Now() }
func (n *Node) Table() overlay.Table                              { return n.overlay.Table() }
func (n *Node) OverlayStats() overlay.Stats                       { return n.overlay.Stats() }
func (n *Node) Coordinates(id ident.Peer) ([]overlay.Coord, bool) { return n.overlay.Coordinates(id) }

// Refused counts overlay messages and push-sum shares refused on arrival
// (malformed, a forged From, refused by the overlay, a share for a task
// without an estimate); Removed the neighbours dropped.
func (n *Node) Refused() uint64 { return n.refused }
func (n *Node) Removed() uint64 { return n.removed }

// Registrations are the Registrar's counts (rebootstraps, bridges) and
// its current server.
func (n *Node) Registrations() (rebootstraps, bridges int, server string) {
	r, b := n.reg.Stats()
	return r, b, n.reg.Current()
}

// InitGain is the estimator's status, nil for a task without one.
func (n *Node) InitGain() *InitGainStatus {
	if n.sizer == nil {
		return nil
	}
	return n.sizer.status()
}

// RenewBefore is how long before its token expires a peer registers
// again to have it renewed: half the default epoch, so a renewal that
// fails (no server answers) is tried again many times before the end.
const RenewBefore = admission.DefaultEpoch / 2

// TokenDue reports whether a token valid until the unix second notAfter
// is due for renewal at now.
func TokenDue(notAfter int64, now time.Time) bool {
	return time.Unix(notAfter, 0).Sub(now) < RenewBefore
}

// HexID is id in hex, "" for the zero ID.
func HexID(id ident.Peer) string {
	if id == (ident.Peer{}) {
		return ""
	}
	return hex.EncodeToString(id[:])
}
