package overlay_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/datadriven"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/sim/overlaynet"
	"github.com/peerlearn/peerlearn/sim/simnet"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of the testdata scripts")

// TestScripts runs the golden scripts in testdata/*.txt on a simulated
// network. Nodes are named by single words; a node's ID is
// IDFromPublicKey(name).
func TestScripts(t *testing.T) {
	datadriven.RunGlob(t, "testdata/*.txt", *rewrite, func() func(*testing.T, *datadriven.Cmd) string {
		s := &script{names: map[ident.Peer]string{}}
		return s.run
	})
}

type script struct {
	c        *overlaynet.Cluster
	names    map[ident.Peer]string
	got      []overlaynet.Delivered
	admitted bool // new ... admitted=true: nodes have real keys and tokens
}

// id names a node: IDFromPublicKey(name), or, in an admitted script, the
// ID of an ed25519 key seeded with SHA-256(name).
func (s *script) id(name string) ident.Peer {
	id := ident.PeerFromPublicKey([]byte(name))
	if s.admitted {
		id = ident.PeerFromPublicKey(keyOf(name))
	}
	s.names[id] = name
	return id
}

func keyOf(name string) ed25519.PublicKey {
	seed := sha256.Sum256([]byte(name))
	return ed25519.NewKeyFromSeed(seed[:]).Public().(ed25519.PublicKey)
}

func (s *script) name(id ident.Peer) string {
	if id == (ident.Peer{}) {
		return "-"
	}
	if n, ok := s.names[id]; ok {
		return n
	}
	return id.String()
}

func (s *script) run(t *testing.T, c *datadriven.Cmd) string {
	if c.Name != "new" && s.c == nil {
		t.Fatalf("line %d: %s before new", c.Line, c.Name)
	}
	out, err := s.exec(c)
	if err != nil {
		return "error: " + err.Error()
	}
	return out
}

func (s *script) exec(c *datadriven.Cmd) (string, error) {
	switch c.Name {
	case "new":
		return "", s.newCluster(c)
	case "add-peers":
		return s.addPeers(c)
	case "join":
		via := s.id(c.Get("via", ""))
		for _, a := range c.Args {
			if err := s.c.Join(s.id(a), via); err != nil {
				return "", err
			}
		}
		return "", nil
	case "leave":
		for _, a := range c.Args {
			if err := s.c.Leave(s.id(a)); err != nil {
				return "", err
			}
		}
		return "", nil
	case "fail":
		for _, a := range c.Args {
			if err := s.c.Crash(s.id(a)); err != nil {
				return "", err
			}
		}
		return "", nil
	case "stall":
		d, err := time.ParseDuration(c.Get("for", "2s"))
		if err != nil {
			return "", err
		}
		for _, a := range c.Args {
			if err := s.c.Stall(s.id(a), d); err != nil {
				return "", err
			}
		}
		return "", nil
	case "tick":
		n := 1
		if len(c.Args) > 0 {
			var err error
			if n, err = strconv.Atoi(c.Args[0]); err != nil {
				return "", err
			}
		}
		s.c.RunFor(time.Duration(n) * s.tick())
		return fmt.Sprintf("t=%v", s.c.Now()), nil
	case "partition":
		var groups [][]ident.Peer
		var g []ident.Peer
		for _, a := range append(slices.Clone(c.Args), "|") {
			if a == "|" {
				groups = append(groups, g)
				g = nil
				continue
			}
			g = append(g, s.id(a))
		}
		return "", s.c.Network().Partition(groups...)
	case "heal":
		s.c.Network().Heal()
		return "", nil
	case "deliver":
		return s.deliver(c)
	case "forge":
		return s.forge(c)
	case "check-correct":
		return s.checkCorrect(), nil
	case "tables":
		return s.tables(), nil
	case "rings":
		return s.rings(), nil
	case "stats":
		return s.stats(), nil
	}
	return "", fmt.Errorf("unknown command %q", c.Name)
}

func (s *script) tick() time.Duration { return 100 * time.Millisecond }

// new spaces=2 seed=1 latency=50ms [jitter=20ms] [loss=0.1]
func (s *script) newCluster(c *datadriven.Cmd) error {
	cfg := overlaynet.DefaultClusterConfig()
	cfg.Tick = s.tick()
	var err error
	if cfg.Overlay.Spaces, err = strconv.Atoi(c.Get("spaces", "2")); err != nil {
		return err
	}
	if cfg.Seed, err = strconv.ParseUint(c.Get("seed", "1"), 10, 64); err != nil {
		return err
	}
	lat, err := time.ParseDuration(c.Get("latency", "50ms"))
	if err != nil {
		return err
	}
	jit, err := time.ParseDuration(c.Get("jitter", "0s"))
	if err != nil {
		return err
	}
	cfg.Net.Latency = simnet.Uniform{Min: lat - jit, Max: lat + jit}
	if cfg.Net.Loss, err = strconv.ParseFloat(c.Get("loss", "0"), 64); err != nil {
		return err
	}
	if s.admitted = c.Get("admitted", "false") == "true"; s.admitted {
		// A seeded admission server: tokens are part of the script's output.
		seed := sha256.Sum256([]byte("admission server " + c.Get("seed", "1")))
		key := ed25519.NewKeyFromSeed(seed[:])
		is, err := admission.NewIssuer(key, sha256.Sum256([]byte("secret")), time.Hour)
		if err != nil {
			return err
		}
		bits, err := strconv.Atoi(c.Get("pow_bits", "0"))
		if err != nil {
			return err
		}
		cfg.Admission = &overlaynet.Admission{Issuer: is, Task: ident.Task{1}, PoWBits: bits, Now: time.Unix(1_800_000_000, 0)}
	}
	s.c, err = overlaynet.NewCluster(cfg)
	if err != nil {
		return err
	}
	s.c.OnDeliver = func(d overlaynet.Delivered) { s.got = append(s.got, d) }
	return nil
}

// add-peers a b c: create nodes (not joined); prints their coordinates.
func (s *script) addPeers(c *datadriven.Cmd) (string, error) {
	var b strings.Builder
	for k, a := range c.Args {
		id := s.id(a)
		add := func() error { _, err := s.c.AddNode(id); return err }
		if s.admitted {
			add = func() error { _, err := s.c.AddAdmittedNode(keyOf(a)); return err }
		}
		if err := add(); err != nil {
			return "", err
		}
		if k > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s:", a)
		for i := range s.c.Spaces() {
			fmt.Fprintf(&b, " s%d=%.3f", i, s.c.Coordinate(id, i).Float())
		}
	}
	return b.String(), nil
}

// deliver from=a [space=0] (to=c | coord=0.25) payload=x [within=5s]
func (s *script) deliver(c *datadriven.Cmd) (string, error) {
	space, err := strconv.Atoi(c.Get("space", "0"))
	if err != nil {
		return "", err
	}
	var target overlay.Coord
	var to ident.Peer
	if c.Has("to") {
		to = s.id(c.Get("to", ""))
	} else {
		f, err := strconv.ParseFloat(c.Get("coord", "0"), 64)
		if err != nil {
			return "", err
		}
		target = overlay.Coord(f * (1 << 64))
	}
	within, err := time.ParseDuration(c.Get("within", "5s"))
	if err != nil {
		return "", err
	}
	s.got = nil
	if err := s.c.Route(s.id(c.Get("from", "")), space, target, to, []byte(c.Get("payload", ""))); err != nil {
		return "", err
	}
	end := s.c.Now() + within
	for len(s.got) == 0 && s.c.Now() < end {
		s.c.RunFor(s.tick())
	}
	if len(s.got) == 0 {
		_, undeliverable := s.c.Dropped()
		return fmt.Sprintf("not delivered within %v (undeliverable so far: %d)", within, undeliverable), nil
	}
	var b strings.Builder
	for k, d := range s.got {
		if k > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s got %q from %s in space %d after %d hops", s.name(d.To), d.Payload, s.name(d.Origin), d.Space, d.Hops)
	}
	return b.String(), nil
}

func (s *script) checkCorrect() string {
	cr := s.c.Correctness()
	if cr.OK() {
		return fmt.Sprintf("correct: nodes=%d", cr.Nodes)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "incorrect: correctness %.3f (%d of %d neighbours, %d extra)", cr.Fraction(), cr.Correct, cr.Expected, cr.Extra)
	want := overlay.ExpectedTablesAt(s.c.Live(), s.c.Spaces(), s.c.Coordinate)
	for _, id := range s.sortedLive() {
		got := s.c.Node(id).Table()
		for i, w := range want[id] {
			if got[i].Pred != w.Pred {
				fmt.Fprintf(&b, "\n  %s s%d pred=%s want %s", s.name(id), i, s.name(got[i].Pred), s.name(w.Pred))
			}
			if got[i].Succ != w.Succ {
				fmt.Fprintf(&b, "\n  %s s%d succ=%s want %s", s.name(id), i, s.name(got[i].Succ), s.name(w.Succ))
			}
		}
	}
	return b.String()
}

func (s *script) sortedLive() []ident.Peer {
	ids := s.c.Live()
	slices.SortFunc(ids, func(a, b ident.Peer) int { return strings.Compare(s.name(a), s.name(b)) })
	return ids
}

// tables: every live node's neighbour table, "pred<node>succ" per space.
func (s *script) tables() string {
	var lines []string
	for _, id := range s.sortedLive() {
		n := s.c.Node(id)
		l := s.name(id) + ":"
		for i, a := range n.Table() {
			l += fmt.Sprintf(" s%d %s<%s>%s", i, s.name(a.Pred), s.name(id), s.name(a.Succ))
		}
		if !n.Joined() {
			l += " (joining)"
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// rings: the correct ring order of the live nodes in each space.
func (s *script) rings() string {
	var lines []string
	ids := s.c.Live()
	for i := range s.c.Spaces() {
		r := slices.Clone(ids)
		slices.SortFunc(r, func(a, b ident.Peer) int {
			ca, cb := s.c.Coordinate(a, i), s.c.Coordinate(b, i)
			if ca != cb {
				if ca < cb {
					return -1
				}
				return 1
			}
			return strings.Compare(string(a[:]), string(b[:]))
		})
		l := fmt.Sprintf("s%d:", i)
		for _, id := range r {
			l += " " + s.name(id)
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// stats: construction messages sent so far, by type (heartbeats apart).
func (s *script) stats() string {
	sent := s.c.Sent()
	hb := sent[overlay.MsgHeartbeat]
	sent[overlay.MsgHeartbeat] = 0
	out := fmt.Sprintf("sent: %v\nheartbeats: %d", sent, hb)
	if st := s.c.Stalls(); st > 0 {
		out += fmt.Sprintf("\nstalls: %d", st)
	}
	return out
}

// forge type=(hint|leave|reply|discover) from=b to=a peer=x [record=true]
// (admitted scripts): hands node to a message from its neighbour from
// that names x, a stranger admitted by the server but not in the overlay,
// with or without x's record; prints whether it was taken and what the
// receiver then knows of x.
func (s *script) forge(c *datadriven.Cmd) (string, error) {
	from, to, x := s.id(c.Get("from", "")), s.id(c.Get("to", "")), s.id(c.Get("peer", ""))
	self, ok := s.c.Token(from)
	if !ok {
		return "", fmt.Errorf("forge: %s has no token (an admitted script?)", c.Get("from", ""))
	}
	xt, err := s.c.Mint(keyOf(c.Get("peer", "")))
	if err != nil {
		return "", err
	}
	m := overlay.Message{From: from, To: to, Records: []admission.Token{self}}
	switch typ := c.Get("type", ""); typ {
	case "hint":
		m.Type, m.Side, m.Peers = overlay.MsgHint, overlay.Succ, []ident.Peer{x}
	case "leave":
		m.Type = overlay.MsgLeave
		for range 2 * s.c.Spaces() {
			m.Peers = append(m.Peers, x)
		}
	case "reply":
		m.Type, m.Peers = overlay.MsgDiscoverReply, []ident.Peer{x, from}
	case "discover":
		m.Type, m.Origin, m.Best = overlay.MsgDiscover, x, math.MaxUint64
	default:
		return "", fmt.Errorf("forge: type %q", typ)
	}
	if c.Get("record", "false") == "true" {
		m.Records = append(m.Records, xt)
	}
	n := s.c.Node(to)
	out := "taken"
	if err := n.Step(m); err != nil {
		out = "refused: " + err.Error()
	}
	_, placed := n.Coordinates(x)
	st := n.Stats()
	return fmt.Sprintf("%s\n%s: no_record=%d bad_records=%d %s placed=%v neighbour=%v", out, s.name(to), st.NoRecord, st.BadRecords,
		s.name(x), placed, slices.Contains(n.Neighbors(), x)), nil
}
