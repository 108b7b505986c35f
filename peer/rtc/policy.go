package rtc

import (
	"cmp"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// policy is the Manager's connection policy as a sans-I/O core, in the
// manner of the overlay's Node: it decides which connections to start,
// accept, keep and drop, when to back off, which path signalling takes
// (the signalling server inside the bootstrap window, else routed over
// the open channels) and which control frames are replays. It has no
// goroutines, no clock (every input carries now), no sockets and no pion
// types; the Manager (the shell) feeds it what happened, executes the
// actions it returns from Ready, and calls Tick as time passes.
//
// Every map it keeps is bounded: links by MaxLinks (Config.MaxConnections);
// memory of past events (crumbs, offers seen, back-offs, relayed peers,
// replay windows of closed links) expires on Tick and holds at most
// maxRemembered entries each, evicting the one that would expire first. Not safe for concurrent use: the shell serialises calls.
type policy struct {
	cfg  policyConfig
	self ident.Peer

	closed     bool
	nextLink   linkID
	links      map[ident.Peer]*link // the current link per peer
	neighbours map[ident.Peer]bool
	kept       map[ident.Peer]bool // links kept open beside the neighbours', never a hop (SetKept)
	backoff    map[ident.Peer]backoff
	crumbs     map[ident.Peer]crumb
	seen       map[sessionKey]time.Time // offers accepted, until they could no longer be fresh
	replay     map[ident.Peer]*replayState
	win        window
	strikes    map[ident.Peer]strikeCount // refused frames in the current window
	bans       map[ident.Peer]time.Time   // banned until
	bansTotal  uint64                     // peers banned since the start
	denials    uint64                     // denials the application asked for (policy_deny.go)
	buckets    map[ident.Peer]bucket      // control frame budgets (policy_rate.go)
	overQuota  uint64                     // offers refused by the offer budgets
	// Offers relayed by the signalling server (policy_serveroffers.go).
	serverOffers        map[ident.Peer]serverOffers
	serverOffersRefused uint64 // refused: the sender's budget was used up
	deadOffers          uint64 // dead offers charged to their senders
	evicted             uint64 // offers whose slot a newer one through the server took

	actions []action
}

// maxRemembered bounds each of the policy's memories of past events.
const maxRemembered = 4096

// policyConfig is the part of Config the policy reads.
type policyConfig struct {
	Spaces          int
	ConnectTimeout  time.Duration
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
	MaxLinks        int
	Grace           time.Duration
	CrumbTTL        time.Duration
	SessionMaxAge   time.Duration
	// Remember bounds each memory map (maxRemembered by default).
	Remember int
	// MaxPendingOffers and MaxOffersPerOrigin bound the offers being
	// answered, in all and per origin (policy_budget.go); 0: no bound.
	MaxPendingOffers, MaxOffersPerOrigin int
	// MaxServerOffers offers relayed by the signalling server are
	// answered per sender within ServerOfferPeriod
	// (policy_serveroffers.go); 0: no bound.
	MaxServerOffers   int
	ServerOfferPeriod time.Duration
	// MaxStrikes refused frames within StrikeWindow ban a peer for
	// BanTime (policy_strikes.go); 0: no bans.
	MaxStrikes   int
	StrikeWindow time.Duration
	BanTime      time.Duration
	// FrameRate control frames a second, in bursts of FrameBurst, from
	// one peer (policy_rate.go); 0: no budget.
	FrameRate  float64
	FrameBurst int
}

func policyConfigOf(c Config) policyConfig {
	return policyConfig{
		Spaces: c.Spaces, ConnectTimeout: c.ConnectTimeout, RetryBackoff: c.RetryBackoff,
		MaxRetryBackoff: c.MaxRetryBackoff, MaxLinks: c.MaxConnections, Grace: c.Grace, CrumbTTL: c.CrumbTTL,
		SessionMaxAge: c.SessionMaxAge, Remember: maxRemembered,
		MaxPendingOffers: c.MaxPendingOffers, MaxOffersPerOrigin: c.MaxOffersPerOrigin,
		MaxServerOffers: c.MaxServerOffers, ServerOfferPeriod: c.ServerOfferPeriod,
		MaxStrikes: c.MaxStrikes, StrikeWindow: c.StrikeWindow, BanTime: c.BanTime,
		FrameRate: c.MaxFrameRate, FrameBurst: c.FrameBurst,
	}
}

// linkID names one connection attempt for its whole life; a peer's next
// attempt gets a new one, so a late report about an old attempt cannot
// touch its successor.
type linkID uint64

// link is the policy's view of one connection (attempt).
type link struct {
	id        linkID
	peer      ident.Peer
	session   uint64 // the attempt's ID (the offer's)
	initiator bool   // we offered
	viaServer bool   // signalled through the signalling server
	keyed     bool   // the peer's session was verified (its offer, or its answer to ours)
	open      bool
	signalVia ident.Peer // first hop our routed offer took (zero: none, or the server)
	origin    ident.Peer // answering: the neighbour that relayed the offer (zero: the server)
	started   time.Time
	strayed   time.Time // when it stopped being a neighbour; zero while one
}

type backoff struct {
	until time.Time
	wait  time.Duration
}

type crumb struct {
	via   ident.Peer
	until time.Time
}

type sessionKey struct {
	from ident.Peer
	id   uint64
}

func newPolicy(cfg policyConfig, self ident.Peer) *policy {
	if cfg.Remember < 1 {
		cfg.Remember = maxRemembered
	}
	return &policy{
		cfg: cfg, self: self,
		links: map[ident.Peer]*link{}, neighbours: map[ident.Peer]bool{}, kept: map[ident.Peer]bool{},
		backoff: map[ident.Peer]backoff{}, crumbs: map[ident.Peer]crumb{},
		seen: map[sessionKey]time.Time{}, replay: map[ident.Peer]*replayState{},
		strikes: map[ident.Peer]strikeCount{}, bans: map[ident.Peer]time.Time{},
		buckets: map[ident.Peer]bucket{}, serverOffers: map[ident.Peer]serverOffers{},
		win: newWindow(),
	}
}

// Ready returns the actions decided since the last call, in order, and
// forgets them.
func (p *policy) Ready() []action {
	a := p.actions
	p.actions = nil
	return a
}

// current returns peer's current link, or nil.
func (p *policy) current(peer ident.Peer) *link { return p.links[peer] }

// isCurrent reports whether id is its peer's current link.
func (p *policy) isCurrent(peer ident.Peer, id linkID) bool {
	l := p.links[peer]
	return l != nil && l.id == id
}

// Open reports whether peer has an open link.
func (p *policy) Open(peer ident.Peer) bool {
	l := p.links[peer]
	return l != nil && l.open
}

// OpenPeers returns the peers with an open link, sorted.
func (p *policy) OpenPeers() []ident.Peer {
	var out []ident.Peer
	for id, l := range p.links {
		if l.open {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, ident.ComparePeers)
	return out
}

// newLink registers a link to peer as its current one.
func (p *policy) newLink(peer ident.Peer, initiator bool, session uint64, now time.Time) *link {
	p.nextLink++
	l := &link{id: p.nextLink, peer: peer, session: session, initiator: initiator, started: now}
	if !p.neighbours[peer] && !p.kept[peer] {
		l.strayed = now
	}
	p.links[peer] = l
	if r := p.replay[peer]; r != nil {
		r.idleSince = time.Time{}
	}
	return l
}

// sortedLinks returns the links in the order they were made, so that
// what the policy decides does not depend on map order.
func (p *policy) sortedLinks() []*link {
	out := make([]*link, 0, len(p.links))
	for _, l := range p.links {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b *link) int { return cmp.Compare(a.id, b.id) })
	return out
}
