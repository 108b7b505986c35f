package rtc

import (
	"flag"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/datadriven"
	"github.com/peerlearn/peerlearn/types/ident"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of the testdata scripts")

// TestPolicyScripts runs the golden scripts in testdata/*.txt against the
// connection policy on virtual time: no network, no clock, no sleeps.
// Peers are named by single words; a peer's ID is PeerFromPublicKey(name).
// Every command's output ends with the actions the policy queued.
func TestPolicyScripts(t *testing.T) {
	datadriven.RunGlob(t, "testdata/*.txt", *rewrite, func() func(*testing.T, *datadriven.Cmd) string {
		s := &policyScript{names: map[ident.Peer]string{}}
		return s.run
	})
}

// scriptEpoch is the scripts' time zero.
var scriptEpoch = time.Unix(1_700_000_000, 0)

type policyScript struct {
	p     *policy
	now   time.Time
	names map[ident.Peer]string
}

func (s *policyScript) id(name string) ident.Peer {
	id := ident.PeerFromPublicKey([]byte(name))
	s.names[id] = name
	return id
}

func (s *policyScript) ids(list string) []ident.Peer {
	var out []ident.Peer
	for _, n := range strings.Split(list, ",") {
		if n != "" {
			out = append(out, s.id(n))
		}
	}
	return out
}

func (s *policyScript) name(id ident.Peer) string {
	if id == (ident.Peer{}) {
		return "-"
	}
	if n, ok := s.names[id]; ok {
		return n
	}
	return id.String()
}

func (s *policyScript) nameList(ids []ident.Peer) string {
	if len(ids) == 0 {
		return "-"
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = s.name(id)
	}
	return strings.Join(out, ",")
}

// at formats a virtual time as the offset from the epoch.
func (s *policyScript) at(t time.Time) string { return "t=" + t.Sub(scriptEpoch).String() }

func (s *policyScript) run(t *testing.T, c *datadriven.Cmd) string {
	if c.Name != "new" && s.p == nil {
		t.Fatalf("line %d: %s before new", c.Line, c.Name)
	}
	out, err := s.exec(c)
	if err != nil {
		out = "error: " + err.Error()
	}
	if s.p != nil {
		for _, a := range s.p.Ready() {
			out = strings.TrimPrefix(out+"\n"+s.action(a), "\n")
		}
	}
	return out
}

func (s *policyScript) action(a action) string {
	switch a.kind {
	case actClose:
		was := "unopened"
		if a.wasOpen {
			was = "open"
		}
		return fmt.Sprintf("-> close link %d to %s (%s, %s)", a.link, s.name(a.peer), was, a.cause)
	case actReport:
		return fmt.Sprintf("-> report connected to %s", s.name(a.peer))
	}
	return fmt.Sprintf("-> action %d", a.kind)
}

func duration(c *datadriven.Cmd, key, def string) time.Duration {
	d, err := time.ParseDuration(c.Get(key, def))
	if err != nil {
		panic(fmt.Sprintf("line %d: %s: %v", c.Line, key, err))
	}
	return d
}

func number(c *datadriven.Cmd, key, def string) uint64 {
	n, err := strconv.ParseUint(c.Get(key, def), 10, 64)
	if err != nil {
		panic(fmt.Sprintf("line %d: %s: %v", c.Line, key, err))
	}
	return n
}

func (s *policyScript) arg(c *datadriven.Cmd) ident.Peer {
	if len(c.Args) != 1 {
		panic(fmt.Sprintf("line %d: %s wants one peer", c.Line, c.Name))
	}
	return s.id(c.Args[0])
}

func (s *policyScript) exec(c *datadriven.Cmd) (string, error) {
	switch c.Name {
	case "new":
		cfg := policyConfig{
			Spaces:          int(number(c, "spaces", "2")),
			ConnectTimeout:  duration(c, "connect-timeout", "8s"),
			RetryBackoff:    duration(c, "backoff", "1s"),
			MaxRetryBackoff: duration(c, "max-backoff", "4s"),
			Grace:           duration(c, "grace", "10s"),
			MaxLinks:        int(number(c, "max-links", "128")),
			CrumbTTL:        duration(c, "crumb-ttl", "30s"),
			SessionMaxAge:   duration(c, "session-max-age", "2m"),
			Remember:        int(number(c, "remember", "4096")),

			MaxPendingOffers:   int(number(c, "max-pending", "0")),
			MaxOffersPerOrigin: int(number(c, "max-per-origin", "0")),
			MaxServerOffers:    int(number(c, "max-server-offers", "0")),
			ServerOfferPeriod:  duration(c, "server-offer-period", "5m"),
			MaxStrikes:         int(number(c, "max-strikes", "0")),
			StrikeWindow:       duration(c, "strike-window", "10s"),
			BanTime:            duration(c, "ban", "1m"),
			FrameRate:          float64(number(c, "frame-rate", "0")),
			FrameBurst:         int(number(c, "frame-burst", "0")),
		}
		s.now = scriptEpoch
		s.p = newPolicy(cfg, s.id(c.Get("self", "self")))
		return "ok", nil
	case "tick":
		s.now = s.now.Add(duration(c, "by", "0s"))
		s.p.Tick(s.now)
		return s.at(s.now), nil
	case "attach":
		again := s.p.Attach(s.ids(c.Get("contacts", "")), duration(c, "window", "10s"), s.now)
		return fmt.Sprintf("again=%v", again), nil
	case "detach":
		s.p.Detach()
		return "ok", nil
	case "use-server":
		return fmt.Sprintf("%v", s.p.UseServer(s.arg(c), s.now)), nil
	case "connect":
		peer := s.arg(c)
		if s.p.current(peer) != nil {
			return "already linked", nil
		}
		l, err := s.p.Connect(peer, number(c, "session", "1"), s.now)
		switch {
		case err != nil && s.p.backingOff(peer, s.now):
			return "backing off until " + s.at(s.p.BackoffUntil(peer)), nil
		case err != nil:
			return "", err
		}
		return s.linkLine(l), nil
	case "offer-sent":
		peer := s.arg(c)
		l := s.p.current(peer)
		if l == nil {
			return "no link", nil
		}
		s.p.OfferSent(peer, l.id, s.id(c.Get("via", "")))
		return s.linkLine(l), nil
	case "offer":
		signed := s.now.Add(-duration(c, "age", "0s")).UnixMilli()
		var hop ident.Peer // the neighbour it came through (zero: none named)
		if c.Has("hop") {
			hop = s.id(c.Get("hop", ""))
		}
		out, err := s.p.Offer(s.id(c.Get("from", "")), number(c, "session", "1"), signed, c.Get("via", "overlay") == "server", hop, s.now)
		switch {
		case err != nil:
			return "", err
		case out.accepted == nil:
			return "ignored: our crossing offer wins", nil
		}
		return s.linkLine(out.accepted), nil
	case "answer":
		signed := s.now.Add(-duration(c, "age", "0s")).UnixMilli()
		l, err := s.p.Answer(s.id(c.Get("from", "")), number(c, "session", "1"), signed, s.now)
		if err != nil {
			return "", err
		}
		return s.linkLine(l), nil
	case "open":
		peer := s.arg(c)
		l := s.p.current(peer)
		if l == nil || !s.p.Opened(peer, l.id, s.now) {
			return "not opened", nil
		}
		return s.linkLine(l), nil
	case "drop":
		peer := s.arg(c)
		l := s.p.current(peer)
		if l == nil {
			return "no link", nil
		}
		s.p.Drop(peer, l.id, "", s.now)
		return "ok", nil
	case "neighbours":
		var ids []ident.Peer
		for _, a := range c.Args {
			ids = append(ids, s.id(a))
		}
		s.p.SetNeighbours(ids, s.now)
		return "ok", nil
	case "kept":
		var ids []ident.Peer
		for _, a := range c.Args {
			ids = append(ids, s.id(a))
		}
		s.p.SetKept(ids, s.now)
		return "ok", nil
	case "crumb":
		s.p.Crumb(s.id(c.Get("origin", "")), s.id(c.Get("via", "")), s.now)
		return "ok", nil
	case "route":
		var from ident.Peer // zero: the envelope starts here
		if c.Has("from") {
			from = s.id(c.Get("from", ""))
		}
		next, back := s.p.NextHop(s.id(c.Get("target", "")), s.ids(c.Get("back", "")), s.ids(c.Get("path", "self")), from, s.now)
		return fmt.Sprintf("next=%s back=%s", s.name(next), s.nameList(back)), nil
	case "frame":
		var out []string
		for _, a := range c.Args {
			seq, err := strconv.ParseUint(a, 10, 64)
			if err != nil {
				return "", err
			}
			v := "replay"
			if s.p.Fresh(s.id(c.Get("from", "")), seq, s.now) {
				v = "fresh"
			}
			out = append(out, fmt.Sprintf("%d:%s", seq, v))
		}
		return strings.Join(out, " "), nil
	case "frames":
		// frames <peer> n=K: K control frames from peer at once; how many
		// the peer's budget admitted.
		peer := s.arg(c)
		admitted := 0
		n := int(number(c, "n", "1"))
		for range n {
			if s.p.AdmitFrame(peer, s.now) {
				admitted++
			}
		}
		return fmt.Sprintf("admitted=%d refused=%d buckets=%d", admitted, n-admitted, len(s.p.buckets)), nil
	case "strike":
		peer := s.arg(c)
		banned := false
		for range number(c, "n", "1") {
			banned = s.p.Strike(peer, s.now) || banned
		}
		return fmt.Sprintf("banned=%v strikes=%d", s.p.Banned(peer, s.now), s.p.strikes[peer].n), nil
	case "dead-offer":
		// dead-offer from=X: X's offer through the server had no workable
		// candidate (the shell's check).
		s.p.DeadOffer(s.id(c.Get("from", "")), s.now)
		return "ok", nil
	case "server-offers":
		var out []string
		for from, b := range s.p.serverOffers {
			out = append(out, fmt.Sprintf("%s: %d until %s", s.name(from), b.n, s.at(b.until)))
		}
		sort.Strings(out)
		return fmt.Sprintf("refused=%d dead=%d over-quota=%d\n%s", s.p.serverOffersRefused, s.p.deadOffers, s.p.overQuota, strings.Join(out, "\n")), nil
	case "deny":
		// deny <peer> for=D: the application denies peer for D.
		peer := s.arg(c)
		ok := s.p.Deny(peer, s.now.Add(duration(c, "for", "1m")), "repeat offender", s.now)
		return fmt.Sprintf("denied=%v banned=%v", ok, s.p.Banned(peer, s.now)), nil
	case "crumbs":
		var out []string
		for origin, cr := range s.p.crumbs {
			out = append(out, fmt.Sprintf("%s via %s until %s", s.name(origin), s.name(cr.via), s.at(cr.until)))
		}
		if len(out) == 0 {
			return "none", nil
		}
		sort.Strings(out)
		return strings.Join(out, "\n"), nil
	case "links":
		return s.links(), nil
	case "memory":
		return fmt.Sprintf("links=%d crumbs=%d seen=%d backoff=%d relayed=%d replay=%d strikes=%d bans=%d",
			len(s.p.links), len(s.p.crumbs), len(s.p.seen), len(s.p.backoff), len(s.p.win.relayed), len(s.p.replay), len(s.p.strikes), len(s.p.bans)), nil
	}
	return "", fmt.Errorf("unknown command %q", c.Name)
}

func (s *policyScript) linkLine(l *link) string {
	var flags []string
	if l.initiator {
		flags = append(flags, "offered")
	} else {
		flags = append(flags, "answering")
	}
	if l.viaServer {
		flags = append(flags, "via-server")
	} else {
		flags = append(flags, "via-overlay")
	}
	if l.keyed {
		flags = append(flags, "keyed")
	}
	if l.open {
		flags = append(flags, "open")
	}
	if l.signalVia != (ident.Peer{}) {
		flags = append(flags, "through="+s.name(l.signalVia))
	}
	if !l.strayed.IsZero() {
		flags = append(flags, "strayed@"+s.at(l.strayed))
	}
	return fmt.Sprintf("link %d to %s: %s", l.id, s.name(l.peer), strings.Join(flags, " "))
}

func (s *policyScript) links() string {
	ls := s.p.sortedLinks()
	if len(ls) == 0 {
		return "none"
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = s.linkLine(l)
	}
	return strings.Join(out, "\n")
}
