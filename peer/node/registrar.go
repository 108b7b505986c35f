package node

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Registrar decides when a peer registers with a signalling server again,
// and what it does with the registration it gets: the re-bootstrap of a
// peer cut off from the overlay, the bridge (a periodic move to another
// server, or with one server a fresh registration while a split is
// suspected, the islet included) and the admission token's renewal. It is
// a pure state machine in the style of etcd's raft: the shell tells it
// what the peer looks like (Tick, with Facts) and what a dial brought
// (Registered), and carries out the Actions it returns; it holds no
// client, socket, clock or goroutine. Its golden scripts are
// testdata/registrar-*.txt.
//
// A peer cut off from the overlay (every neighbour gone and no open
// connection: it slept, was frozen as a background tab, or lost its
// network for longer than the failure timeout) cannot get back on its
// own: a WebRTC connection to a contact it remembers must be signalled
// over open connections, and there are none. So it registers again (the
// server replaces its old registration), gets fresh contacts and a
// bootstrap window, and joins through them. A peer that never had a
// neighbour is in the same place when none of its contacts answers (they
// left, sit behind a NAT, or are silent fakes): after NeverLinkedAfter it
// registers again for other contacts.
//
// Peers that bootstrapped through different servers form separate
// overlays at first; the bridge joins them. A member moves its
// registration to a random other server about every BridgeEvery and
// joins through the first contact of that server's welcome: the overlay's
// merge probe started by hand. With one server (BridgeWhenSplit) a
// member registers there again only while a split is suspected: the
// overlay remembers failed neighbours that are not back, the peer sits
// on an islet of two, or it has joined checks left (JoinChecks).
type Registrar struct {
	cfg     RegistrarConfig
	current string // the current registration's server

	// The isolation watch.
	linked   bool          // had a neighbour since the last registration
	joining  bool          // joined through a welcome's contacts (not the founder)
	since    time.Time     // cut off since (zero: not cut off)
	next     time.Time     // no re-bootstrap before this (backoff)
	wait     time.Duration // the backoff after the next attempt
	pending  bool          // a re-bootstrap is dialling
	reboots  int           // registrations adopted after the first by re-bootstrap
	welcomed int           // contacts the latest adopted welcome listed

	// The bridge.
	bridgeNext    time.Time // the next move (zero: not scheduled)
	bridgePending bool      // a move or renewal is dialling
	moves         int       // moves that joined through the other server's contacts
	level, misses int       // BridgeWhenSplit's back-off
	remembered    uint64    // the overlay's failures remembered, when last looked at
	neighbours    uint64    // digest of the neighbour set at the last move

	// checks are the join checks left (JoinChecks).
	checks int

	// The renewal.
	renewNext time.Time
}

// BridgeMode says when a peer with one signalling server registers with
// it again to heal a partition (RegistrarConfig.BridgeAlone).
type BridgeMode uint8

const (
	// BridgeWhenSplit (the default): JoinChecks times after joining, and
	// then only while the overlay remembers failed neighbours that are
	// not neighbours again and that no connection has reached since (they
	// may be alive across a healed cut), or the peer sits on an islet,
	// about every BridgeEvery at
	// first and then half as often after each registration that changed
	// no neighbour once BridgeGraceMoves have, up to MaxBridgeBackoff
	// doublings; a new failure starts over.
	BridgeWhenSplit BridgeMode = iota
	// BridgeAlways: about every BridgeEvery, whatever the overlay knows.
	BridgeAlways
	// BridgeNever: never; a partition longer than the transport's grace
	// then stays split unless the peers have several servers.
	BridgeNever
)

var bridgeModeNames = [...]string{BridgeWhenSplit: "when-split", BridgeAlways: "always", BridgeNever: "never"}

// String names the mode as the -bridge-alone flag spells it.
func (m BridgeMode) String() string {
	if int(m) < len(bridgeModeNames) {
		return bridgeModeNames[m]
	}
	return fmt.Sprintf("BridgeMode(%d)", uint8(m))
}

// RegistrarConfig configures a Registrar.
type RegistrarConfig struct {
	// Servers are the signalling servers, each once (at least one).
	Servers []string
	// RebootstrapAfter: a peer that had neighbours and has been cut off
	// this long registers again; failed attempts back off to
	// MaxRebootstrapWait. 0: never.
	RebootstrapAfter time.Duration
	// BridgeEvery: the bridge's period (jittered 0.5x-1.5x). 0: never.
	BridgeEvery time.Duration
	// BridgeAlone: when a peer with one server bridges.
	BridgeAlone BridgeMode
	// Rand draws the bridge's jitter, its server and the re-bootstrap's
	// order of servers (seeded by the shell: same seed, same choices).
	Rand *rand.Rand
}

// Timing constants.
const (
	// MaxRebootstrapWait caps the backoff between failed re-bootstraps.
	MaxRebootstrapWait = time.Minute
	// NeverLinkedAfter is the least a peer that never had a neighbour
	// waits for its contacts before registering again: a join through a
	// live contact takes well under this even when its connection takes
	// the whole of rtc's ConnectTimeout (15 s).
	NeverLinkedAfter = 15 * time.Second
	// BridgeGraceMoves: the first moves after a failure come every
	// BridgeEvery before the back-off starts. One move may meet contacts
	// on its own side only, and a split can leave fragments that need
	// several.
	BridgeGraceMoves = 3
	// MaxBridgeBackoff caps BridgeWhenSplit's back-off at 32 BridgeEvery
	// (half an hour at the default minute): still several tries within
	// the hour the overlay remembers a failed neighbour.
	MaxBridgeBackoff = 5
	// RenewRetry spaces the attempts to renew the admission token.
	RenewRetry = 10 * time.Minute
	// JoinChecks: with BridgeWhenSplit, a member registers again this
	// many times after it first joined, on the bridge's schedule, as if a
	// split were suspected. Newcomers whose joins crossed under load can
	// form overlays of their own that no failure tells apart (a CI run:
	// 8 peers joined through one contact within 0.15 s stayed in
	// overlays of 3 and 5 for 3 minutes); each check is a merge probe
	// through fresh contacts. Two registrations in a peer's first few
	// minutes.
	JoinChecks = 2
)

// NewRegistrar returns a registrar whose first registration is with
// server current, whose welcome listed welcomed contacts.
func NewRegistrar(cfg RegistrarConfig, current string, welcomed int) (*Registrar, error) {
	switch {
	case len(cfg.Servers) == 0:
		return nil, fmt.Errorf("%w: no signalling server", ErrConfig)
	case cfg.RebootstrapAfter < 0 || cfg.BridgeEvery < 0:
		return nil, fmt.Errorf("%w: RebootstrapAfter %v, BridgeEvery %v", ErrConfig, cfg.RebootstrapAfter, cfg.BridgeEvery)
	case cfg.BridgeAlone > BridgeNever:
		return nil, fmt.Errorf("%w: BridgeAlone %v", ErrConfig, cfg.BridgeAlone)
	case cfg.Rand == nil:
		return nil, fmt.Errorf("%w: no Rand", ErrConfig)
	}
	return &Registrar{cfg: cfg, current: current, welcomed: welcomed, checks: JoinChecks}, nil
}

// Facts is what the peer looks like now, as the shell sees it.
type Facts struct {
	Now time.Time
	// Left: the node has left the overlay (the peer is stopping).
	Left bool
	// Joined: the node is a member.
	Joined bool
	// Neighbors is the overlay's neighbour set.
	Neighbors []ident.Peer
	// Connections counts the open data channels.
	Connections int
	// Remembered is the overlay's count of failed neighbours remembered
	// so far (overlay.Stats().Remembered); NotBack those not back
	// (Node.Remembering()).
	Remembered uint64
	NotBack    int
	// RenewalDue: the admission token expires soon (the shell reads it).
	RenewalDue bool
}

// cutOff: neither a neighbour nor an open connection.
func (f Facts) cutOff() bool { return len(f.Neighbors) == 0 && f.Connections == 0 }

// Why says what a registration is for.
type Why uint8

const (
	// Rebootstrap: the peer is cut off, or its contacts never answered.
	Rebootstrap Why = iota + 1
	// Bridge: a periodic move, or with one server a suspected split.
	Bridge
	// Renew: the admission token is due.
	Renew
)

var whyNames = [...]string{Rebootstrap: "rebootstrap", Bridge: "bridge", Renew: "renew"}

func (w Why) String() string {
	if int(w) < len(whyNames) && w > 0 {
		return whyNames[w]
	}
	return fmt.Sprintf("Why(%d)", uint8(w))
}

// Dial asks the shell to register with the first of URLs that accepts
// (in that order) and to bring the outcome back with Registered.
type Dial struct {
	Why  Why
	URLs []string
}

// Outcome is what a Dial brought.
type Outcome struct {
	Why Why
	// URL is the server that accepted (with Err nil).
	URL string
	Err error
	// Contacts are the new welcome's contacts.
	Contacts []ident.Peer
}

// Decision is the registrar's answer to an Outcome.
type Decision struct {
	// Adopt: the new registration replaces the current one (the shell
	// attaches it and closes the old one); else the shell closes the new
	// one (if any) and keeps the current.
	Adopt bool
	// CheckToken: the shell takes the new registration's admission token
	// (a renewal counts even when the peer keeps its registration).
	CheckToken bool
	// Join: the contacts to join through, the first first (rotated so
	// that repeated registrations do not all try the same contact); none
	// when the welcome listed none.
	Join []ident.Peer
	// Log says what happened, for the peer's log.
	Log string
}

// Joining records that the node joins through a welcome's contacts (the
// first registration's, in the shell).
func (r *Registrar) Joining() { r.joining = true }

// Current is the current registration's server.
func (r *Registrar) Current() string { return r.current }

// Stats are the registrations adopted after the first.
func (r *Registrar) Stats() (rebootstraps, bridges int) { return r.reboots, r.moves }

// Tick looks at the peer and returns the registration to start, if any:
// at most one is dialling at a time for each of the re-bootstrap and the
// bridge (the renewal goes through the bridge's). The log line says why.
func (r *Registrar) Tick(f Facts) (*Dial, string) {
	if d, log := r.watchIsolation(f); d != nil {
		return d, log
	}
	if d := r.watchBridge(f); d != nil {
		return d, ""
	}
	return r.watchRenewal(f), ""
}

// watchIsolation starts a re-bootstrap when the peer has been cut off
// long enough.
func (r *Registrar) watchIsolation(f Facts) (*Dial, string) {
	if r.cfg.RebootstrapAfter <= 0 || f.Left {
		return nil, ""
	}
	if len(f.Neighbors) > 0 {
		r.linked = true
	}
	if !(r.linked || r.joining) || !f.cutOff() {
		r.since, r.wait, r.next = time.Time{}, 0, time.Time{}
		return nil, ""
	}
	if r.since.IsZero() {
		r.since = f.Now
	}
	after := r.cfg.RebootstrapAfter
	if !r.linked {
		after = max(3*r.cfg.RebootstrapAfter, NeverLinkedAfter)
	}
	if r.pending || f.Now.Sub(r.since) < after || f.Now.Before(r.next) {
		return nil, ""
	}
	r.pending = true
	cut := f.Now.Sub(r.since).Round(100 * time.Millisecond)
	log := fmt.Sprintf("cut off from the overlay for %v: registering with the signalling server again", cut)
	if !r.linked {
		log = fmt.Sprintf("no contact answered in %v: registering with the signalling server again for other contacts", cut)
	}
	return &Dial{Why: Rebootstrap, URLs: r.shuffled()}, log
}

// shuffled returns the servers in a random order (Shuffled).
func (r *Registrar) shuffled() []string { return Shuffled(r.cfg.Servers, r.cfg.Rand) }

// Shuffled returns urls in an order drawn from rng: a dead server listed
// first costs every peer one refused dial, not all of them the same wait,
// and the load spreads.
func Shuffled(urls []string, rng *rand.Rand) []string {
	out := append([]string(nil), urls...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// watchBridge starts a move when one is due: the peer is a member, not
// cut off (the re-bootstrap handles that), and knows another server.
func (r *Registrar) watchBridge(f Facts) *Dial {
	others := r.otherServers()
	if r.cfg.BridgeEvery <= 0 || len(others) == 0 || r.bridgePending || r.pending || !f.Joined || f.cutOff() {
		return nil
	}
	whenSplit := r.bridgesWhenSplit()
	if whenSplit && !r.splitSuspected(f) {
		return nil
	}
	if r.bridgeNext.IsZero() {
		r.schedule(f.Now)
	}
	if f.Now.Before(r.bridgeNext) {
		return nil
	}
	if whenSplit {
		r.misses++
		r.level = min(max(r.misses-BridgeGraceMoves, 0), MaxBridgeBackoff)
		r.checks = max(r.checks-1, 0)
	}
	r.schedule(f.Now)
	r.neighbours = neighbourDigest(f.Neighbors)
	r.bridgePending = true
	return &Dial{Why: Bridge, URLs: []string{others[r.cfg.Rand.IntN(len(others))]}}
}

// watchRenewal registers again with the current server when the token is
// due for renewal (every mode, BridgeNever too: a lapsed token makes the
// peer unjoinable for newcomers), at most once per RenewRetry.
func (r *Registrar) watchRenewal(f Facts) *Dial {
	if r.bridgePending || r.pending || !f.Joined || f.cutOff() || f.Now.Before(r.renewNext) || !f.RenewalDue {
		return nil
	}
	r.renewNext = f.Now.Add(RenewRetry)
	r.bridgePending = true
	return &Dial{Why: Renew, URLs: []string{r.current}}
}

// schedule draws the next move: every/2 to 3*every/2 from now, every
// doubled per back-off level.
func (r *Registrar) schedule(now time.Time) {
	every := r.cfg.BridgeEvery
	if every <= math.MaxInt64>>(r.level+1) { // not past the clock's range
		every <<= r.level
	}
	r.bridgeNext = now.Add(every/2 + time.Duration(r.cfg.Rand.Int64N(int64(every))))
}

// bridgesWhenSplit: one server, in that mode. With several servers a peer
// always moves, since peers bootstrapped through different servers are
// split from the start.
func (r *Registrar) bridgesWhenSplit() bool {
	return len(r.cfg.Servers) == 1 && r.cfg.BridgeAlone == BridgeWhenSplit
}

// otherServers lists the servers other than the current registration's;
// with one server, that server unless BridgeNever (a fresh registration
// there is what heals a long partition).
func (r *Registrar) otherServers() []string {
	if len(r.cfg.Servers) == 1 && r.cfg.BridgeAlone != BridgeNever {
		return r.cfg.Servers
	}
	var out []string
	for _, u := range r.cfg.Servers {
		if u != r.current {
			out = append(out, u)
		}
	}
	return out
}

// splitSuspected: the overlay remembers failed neighbours that are not
// back and that no connection has reached since, which may be alive
// across a healed cut, or the peer sits on an islet. A failure seen since
// the last look, or neighbours changed since the last move (it found
// something: keep looking), start the back-off over, with a move due
// about every BridgeEvery from now; none not back ends it.
func (r *Registrar) splitSuspected(f Facts) bool {
	notBack := f.NotBack
	if Islet(len(f.Neighbors), r.welcomed) || r.checks > 0 {
		notBack++
	}
	digest := neighbourDigest(f.Neighbors)
	if f.Remembered != r.remembered || r.level > 0 && digest != r.neighbours {
		r.remembered, r.neighbours, r.level, r.misses = f.Remembered, digest, 0, 0
		r.schedule(f.Now)
	}
	if notBack == 0 {
		r.level, r.misses, r.bridgeNext = 0, 0, time.Time{}
		return false
	}
	return true
}

// Islet reports whether a peer with this many neighbours sits on an
// overlay of two while its welcome named at least two other peers: on
// FedLay's rings three or more peers give every one at least two
// distinct neighbours, so a single neighbour means the pair formed apart
// (two newcomers whose contacts did not answer, under load, joined each
// other) and nothing else tells them, since no neighbour of theirs ever
// failed. A registration's fresh contacts join it to the rest.
func Islet(neighbours, welcomed int) bool { return neighbours == 1 && welcomed >= 2 }

// neighbourDigest is an order-independent digest of a neighbour set.
func neighbourDigest(ids []ident.Peer) uint64 {
	var d uint64
	for _, id := range ids {
		d += binary.LittleEndian.Uint64(id[:8]) // IDs are hashes: their bits are uniform
	}
	return d
}

// Registered takes a Dial's outcome, with the peer as it is now.
//
// A re-bootstrap, failed or not, pushes the next one back (doubling up to
// MaxRebootstrapWait) until the peer has neighbours again: a join through
// the new contacts can fail too. Its registration is adopted only if the
// peer is still cut off. A move or renewal is adopted when its welcome
// lists contacts (else the server is down or has nobody: the peer stays);
// its token counts either way.
func (r *Registrar) Registered(o Outcome, f Facts) Decision {
	switch {
	case o.Why == Rebootstrap && !r.pending, (o.Why == Bridge || o.Why == Renew) && !r.bridgePending:
		return Decision{Log: fmt.Sprintf("a %v registration nobody asked for: closed", o.Why)}
	}
	switch o.Why {
	case Rebootstrap:
		r.pending = false
		r.wait = min(max(2*r.wait, r.cfg.RebootstrapAfter), MaxRebootstrapWait)
		r.next = f.Now.Add(r.wait)
		if o.Err != nil {
			return Decision{Log: fmt.Sprintf("registering again failed (next try in %v at the earliest): %v", r.wait, o.Err)}
		}
		if !f.cutOff() { // back in touch while the dial was under way
			return Decision{Log: "registered again, but no longer cut off: keeping the old registration"}
		}
		r.reboots++
		d := r.adopt(o, r.reboots-1)
		d.CheckToken = true
		if len(d.Join) == 0 {
			d.Log = "registered again: no other peer is registered for the task"
		} else {
			d.Log = fmt.Sprintf("registered again: joining through %v (%d contacts)", d.Join[0], len(d.Join))
		}
		return d
	case Bridge, Renew:
		r.bridgePending = false
		if o.Err != nil {
			return Decision{Log: fmt.Sprintf("moving to signalling server %s failed: %v", o.URL, o.Err)}
		}
		r.welcomed = len(o.Contacts)
		if len(o.Contacts) == 0 || f.Left {
			return Decision{CheckToken: true, Log: fmt.Sprintf("signalling server %s has no other peer of the task: staying with %s", o.URL, r.current)}
		}
		r.moves++
		d := r.adopt(o, r.moves-1)
		d.CheckToken = true
		d.Log = fmt.Sprintf("moved to signalling server %s: joining through %v (%d contacts)", o.URL, d.Join[0], len(d.Join))
		return d
	}
	return Decision{Log: fmt.Sprintf("registration outcome %v: not asked for", o.Why)}
}

// adopt makes o's registration the current one, joining through its
// contacts rotated by k.
func (r *Registrar) adopt(o Outcome, k int) Decision {
	r.current, r.welcomed = o.URL, len(o.Contacts)
	d := Decision{Adopt: true, Join: RotateContacts(o.Contacts, k)}
	if len(d.Join) > 0 {
		r.joining = true
	}
	return d
}

// RotateContacts returns cs rotated left by k: the k-th registration
// joins through its welcome's k-th contact first, so repeated
// registrations that get the same few contacts do not all try the same
// one first.
func RotateContacts(cs []ident.Peer, k int) []ident.Peer {
	if len(cs) == 0 || k <= 0 {
		return cs
	}
	k %= len(cs)
	out := make([]ident.Peer, 0, len(cs))
	out = append(out, cs[k:]...)
	return append(out, cs[:k]...)
}
