package server

import (
	"sync/atomic"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// maxCode bounds the codes counted (signal's codes are small and
// append-only; larger ones are counted under 0).
const maxCode = 64

// counters are the server's monotonic counters; safe for concurrent use.
type counters struct {
	connections   atomic.Int64 // open websockets (gauge)
	registrations atomic.Uint64
	relayed       [4]atomic.Uint64 // by signal.RelayKind
	refusals      [maxCode]atomic.Uint64
	addrLimited   [numAddrLimits]atomic.Uint64 // by addrLimit
	tasksCreated  atomic.Uint64
	summaries     [2]atomic.Uint64                   // summaryCounted, summaryRefused
	createRefused [len(createRefusals)]atomic.Uint64 // POST /tasks, by reason
	// Contact claims (claims.go).
	claimsConfirmed   atomic.Uint64 // claims confirmed by their contact: peers made established
	claimsUnconfirmed atomic.Uint64 // claims not (yet) confirmed when made
	confirmations     atomic.Uint64 // contacts' reports of an open channel with a newcomer
	claimsRefused     atomic.Uint64 // reports that were neither (also in Refusals as not-allowed)
}

// addrLimit names an AddrLimits refusal.
type addrLimit int

const (
	limitHandshakesIP addrLimit = iota
	limitHandshakesSubnet
	limitPeersIP
	limitPeersSubnet
	numAddrLimits
)

// String is the metric label.
func (l addrLimit) String() string {
	return [...]string{"handshakes_per_ip", "handshakes_per_subnet", "peers_per_ip", "peers_per_subnet"}[l]
}

// addrRefuse counts an AddrLimits refusal: ipKind (limitHandshakesIP or
// limitPeersIP) when the address was over, the subnet kind after it
// otherwise. The refusal is also counted under CodeServerFull
// (handshakes) or CodeTaskFull (peers).
func (c *counters) addrRefuse(ipKind addrLimit, ipOver, subnetOver bool) {
	if ipOver {
		c.addrLimited[ipKind].Add(1)
	} else if subnetOver {
		c.addrLimited[ipKind+1].Add(1)
	}
	if ipKind == limitHandshakesIP {
		c.refuse(signal.CodeServerFull)
	} else {
		c.refuse(signal.CodeTaskFull)
	}
}

func (c *counters) refuse(code signal.Code) {
	if int(code) >= maxCode {
		code = 0
	}
	c.refusals[code].Add(1)
}

// Stats is a snapshot of the server's state and counters.
type Stats struct {
	// Connections is the number of open websockets (registered or not).
	Connections int
	// Peers is the number of registered peers per hosted task.
	Peers map[ident.Task]int
	// Registrations counts accepted hellos.
	Registrations uint64
	// Relayed counts relayed messages by kind.
	Relayed map[signal.RelayKind]uint64
	// Refusals counts refusals by reason (HTTP-level ones included:
	// CodeOrigin, CodeServerFull for handshakes over the limit,
	// CodeShutdown while draining).
	Refusals map[signal.Code]uint64
	// AddrLimited counts refusals by AddrLimits, by limit
	// ("handshakes_per_ip", "handshakes_per_subnet", "peers_per_ip",
	// "peers_per_subnet"); each is also in Refusals.
	AddrLimited map[string]uint64
	// TaskNames names the hosted tasks (Config.Tasks and created ones).
	TaskNames map[ident.Task]string
	// TasksCreated counts tasks created by POST /tasks.
	TasksCreated uint64
	// CreateRefused counts refused POST /tasks by reason ("off",
	// "bad-spec", "not-allowed", "full", "per-address").
	CreateRefused map[string]uint64
	// SummariesCounted and SummariesRefused count the peers' summaries
	// (MsgSummary); each refusal is also in Refusals.
	SummariesCounted, SummariesRefused uint64
	// Progress is each task's point now, from its peers' summaries.
	Progress map[ident.Task]ProgressPoint
	// Claims counts the "connected" reports (claims.go).
	Claims ClaimStats
	// Established is the number of established peers per hosted task:
	// those handed to newcomers first.
	Established map[ident.Task]int
}

// ClaimStats counts "connected" reports: Confirmed claims (their contact
// confirmed an open channel: the claimant became established),
// Unconfirmed ones (no confirmation yet when made; a later one still
// counts), Confirmations (contacts' reports) and Refused ones (neither a
// claim nor a confirmation).
type ClaimStats struct {
	Confirmed, Unconfirmed, Confirmations, Refused uint64
}

// RelayedTotal sums Relayed.
func (s Stats) RelayedTotal() uint64 {
	var n uint64
	for _, v := range s.Relayed {
		n += v
	}
	return n
}

// Stats returns a snapshot.
func (s *Server) Stats() Stats {
	st := Stats{
		Connections:      int(s.counters.connections.Load()),
		Peers:            map[ident.Task]int{},
		Registrations:    s.counters.registrations.Load(),
		Relayed:          map[signal.RelayKind]uint64{},
		Refusals:         map[signal.Code]uint64{},
		AddrLimited:      map[string]uint64{},
		TaskNames:        map[ident.Task]string{},
		TasksCreated:     s.counters.tasksCreated.Load(),
		CreateRefused:    map[string]uint64{},
		Progress:         map[ident.Task]ProgressPoint{},
		SummariesCounted: s.counters.summaries[summaryCounted].Load(),
		SummariesRefused: s.counters.summaries[summaryRefused].Load(),
		Established:      map[ident.Task]int{},
		Claims: ClaimStats{
			Confirmed: s.counters.claimsConfirmed.Load(), Unconfirmed: s.counters.claimsUnconfirmed.Load(),
			Confirmations: s.counters.confirmations.Load(), Refused: s.counters.claimsRefused.Load(),
		},
	}
	for i, why := range createRefusals {
		if n := s.counters.createRefused[i].Load(); n > 0 {
			st.CreateRefused[why] = n
		}
	}
	for l := range numAddrLimits {
		if n := s.counters.addrLimited[l].Load(); n > 0 {
			st.AddrLimited[l.String()] = n
		}
	}
	s.mu.Lock()
	for id, ts := range s.tasks {
		peers, _ := ts.counts() // observers are not the task's peers
		st.Peers[id] = peers
		st.TaskNames[id] = ts.spec.Name
		st.Progress[id] = ts.progress.now(s.now(), peers)
		for _, p := range ts.peers {
			if p.established && !p.observer {
				st.Established[id]++
			}
		}
	}
	s.mu.Unlock()
	for k := range s.counters.relayed {
		if n := s.counters.relayed[k].Load(); n > 0 {
			st.Relayed[signal.RelayKind(k)] = n
		}
	}
	for c := range s.counters.refusals {
		if n := s.counters.refusals[c].Load(); n > 0 {
			st.Refusals[signal.Code(c)] = n
		}
	}
	return st
}
