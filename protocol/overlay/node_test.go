package overlay

import (
	"errors"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func TestConfigValidate(t *testing.T) {
	if err := testConfig(5, 1).Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	for name, mut := range map[string]func(*Config){
		"spaces 0":         func(c *Config) { c.Spaces = 0 },
		"spaces 17":        func(c *Config) { c.Spaces = MaxSpaces + 1 },
		"heartbeat 0":      func(c *Config) { c.HeartbeatTicks = 0 },
		"failure <= T":     func(c *Config) { c.FailureTicks = c.HeartbeatTicks },
		"suspect < T":      func(c *Config) { c.SuspectTicks = c.HeartbeatTicks - 1 },
		"suspect > fail":   func(c *Config) { c.SuspectTicks = c.FailureTicks + 1 },
		"repair < 0":       func(c *Config) { c.RepairTicks = -1 },
		"churn repair 0":   func(c *Config) { c.ChurnRepairTicks = 0 },
		"churn window < 0": func(c *Config) { c.ChurnWindowTicks = -1 },
		"retry 0":          func(c *Config) { c.RetryTicks = 0 },
		"tombstone < 0":    func(c *Config) { c.TombstoneTicks = -1 },
		"tombstones < 0":   func(c *Config) { c.MaxTombstones = -1 },
		"hops 0":           func(c *Config) { c.MaxHops = 0 },
		"hops 256":         func(c *Config) { c.MaxHops = 256 },
		"payload":          func(c *Config) { c.MaxPayload = MaxPayload + 1 },
		"no rand":          func(c *Config) { c.Rand = nil },
	} {
		c := testConfig(5, 1)
		mut(&c)
		if err := c.Validate(); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: %v, want ErrInvalidConfig", name, err)
		}
		if _, err := NewNode(testID(1), c); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("NewNode with %s: %v", name, err)
		}
	}
	if _, err := NewNode(ident.Peer{}, testConfig(5, 1)); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("zero ID: %v", err)
	}
}

func TestJoinTwoThenThree(t *testing.T) {
	p, ids := newPump(t, 3, "a", "b", "c")
	a, b, c := p.nodes[ids[0]], p.nodes[ids[1]], p.nodes[ids[2]]
	if !a.Joined() || len(a.Neighbors()) != 0 {
		t.Fatal("a founder should be a member with no neighbours")
	}
	if err := b.Join(ids[0]); err != nil {
		t.Fatal(err)
	}
	if b.Joined() {
		t.Fatal("b joined before any answer")
	}
	rd := b.Ready()
	if len(rd.Messages) != 1 || rd.Messages[0].Type != MsgJoin || rd.Messages[0].To != ids[0] {
		t.Fatalf("b's first Ready: %+v", rd.Messages)
	}
	p.settle()
	if !b.Joined() {
		t.Fatal("b not joined after the answers")
	}
	for _, n := range []*Node{a, b} {
		for i, adj := range n.Table() {
			other := ids[0]
			if n == a {
				other = ids[1]
			}
			if adj.Pred != other || adj.Succ != other {
				t.Errorf("%v space %d: %+v, want the other node on both sides", n.ID(), i, adj)
			}
		}
	}
	if err := c.Join(ids[1]); err != nil {
		t.Fatal(err)
	}
	p.settle()
	p.requireCorrect()
	if got := c.Stats().Sent[MsgJoin]; got != 1 {
		t.Errorf("c sent %d Joins", got)
	}
}

func TestReadyReportsNeighbourChanges(t *testing.T) {
	p, ids := newPump(t, 2, "a", "b")
	b := p.nodes[ids[1]]
	b.Join(ids[0])
	b.Advance()
	// Deliver a's answers by hand so b's Ready is ours to inspect.
	a := p.nodes[ids[0]]
	if err := a.Step(Message{Type: MsgJoin, From: ids[1], To: ids[0], Roles: 0b11}); err != nil {
		t.Fatal(err)
	}
	rd := a.Ready()
	if !slices.Equal(rd.Added, []ident.Peer{ids[1]}) || len(rd.Removed) != 0 {
		t.Fatalf("a's Ready: added %v removed %v", rd.Added, rd.Removed)
	}
	a.Advance()
	if a.HasReady() {
		t.Fatal("HasReady after Advance with nothing new")
	}
	for _, m := range rd.Messages {
		if err := b.Step(m); err != nil {
			t.Fatal(err)
		}
	}
	if rd := b.Ready(); !slices.Equal(rd.Added, []ident.Peer{ids[0]}) {
		t.Fatalf("b's Ready added %v", rd.Added)
	}
	b.Advance()
	if err := b.Leave(); err != nil {
		t.Fatal(err)
	}
	rd = b.Ready()
	if !slices.Equal(rd.Removed, []ident.Peer{ids[0]}) || len(rd.Messages) != 1 || rd.Messages[0].Type != MsgLeave {
		t.Fatalf("after Leave: removed %v, messages %v", rd.Removed, rd.Messages)
	}
	if err := b.Leave(); !errors.Is(err, ErrStopped) {
		t.Errorf("second Leave: %v", err)
	}
}

func TestStepRejects(t *testing.T) {
	p, ids := newPump(t, 2, "a", "b")
	a := p.nodes[ids[0]]
	other := testID(9)
	for name, c := range map[string]struct {
		m    Message
		want error
	}{
		"to another":   {Message{Type: MsgLink, From: ids[1], To: other, Roles: 1}, ErrMisaddressed},
		"from itself":  {Message{Type: MsgLink, From: ids[0], To: ids[0], Roles: 1}, ErrMisaddressed},
		"space beyond": {Message{Type: MsgRepairReply, From: ids[1], To: ids[0], Space: 2}, ErrBadSpace},
		"leave size":   {Message{Type: MsgLeave, From: ids[1], To: ids[0], Peers: []ident.Peer{other, other}}, ErrMalformed},
		"invalid":      {Message{Type: MsgHint, From: ids[1], To: ids[0]}, ErrMalformed},
	} {
		if err := a.Step(c.m); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if a.HasReady() {
		t.Error("a rejected message changed the node")
	}
	if err := a.Route(2, 0, nil); !errors.Is(err, ErrBadSpace) {
		t.Errorf("Route in space 2 of 2: %v", err)
	}
	if err := a.Route(0, 0, make([]byte, DefaultConfig().MaxPayload+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Route with a large payload: %v", err)
	}
	if err := a.Join(ids[0]); !errors.Is(err, ErrMisaddressed) {
		t.Errorf("Join through itself: %v", err)
	}
	a.Leave()
	if err := a.Step(Message{Type: MsgLink, From: ids[1], To: ids[0], Roles: 1}); !errors.Is(err, ErrStopped) {
		t.Errorf("Step after Leave: %v", err)
	}
}

func build(t *testing.T, spaces int, names ...string) (*pump, []ident.Peer) {
	p, ids := newPump(t, spaces, names...)
	for _, id := range ids[1:] {
		if err := p.nodes[id].Join(ids[0]); err != nil {
			t.Fatal(err)
		}
		p.settle()
	}
	p.tick(1)
	p.requireCorrect()
	return p, ids
}

func TestSequentialJoinsStayCorrect(t *testing.T) {
	p, ids := newPump(t, 4, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l")
	for k, id := range ids[1:] {
		if err := p.nodes[id].Join(ids[k]); err != nil { // through the previous joiner
			t.Fatal(err)
		}
		p.settle() // no ticks: the join protocol alone
		tabs := map[ident.Peer]Table{}
		for _, j := range ids[:k+2] {
			tabs[j] = p.nodes[j].Table()
		}
		if c := Check(tabs, 4); !c.OK() {
			t.Fatalf("after %d joins: %+v", k+1, c)
		}
	}
}

func TestFailureDetectedAfterFailureTicks(t *testing.T) {
	p, ids := build(t, 2, "a", "b", "c", "d", "e")
	dead := ids[2]
	p.drop = func(m Message) bool { return m.From == dead || m.To == dead }
	p.nodes[dead].Leave() // silence it (its Leave messages are dropped)
	p.settle()
	cfg := DefaultConfig()
	holders := func() int {
		k := 0
		for _, id := range ids {
			if id != dead && slices.Contains(p.nodes[id].Neighbors(), dead) {
				k++
			}
		}
		return k
	}
	if holders() == 0 {
		t.Fatal("nobody held the node to fail")
	}
	p.tick(cfg.FailureTicks - cfg.HeartbeatTicks - 1)
	if holders() == 0 {
		t.Fatal("failure declared before FailureTicks of silence")
	}
	p.tick(cfg.HeartbeatTicks + 2)
	if k := holders(); k != 0 {
		t.Fatalf("%d nodes still hold the failed node after FailureTicks", k)
	}
	delete(p.nodes, dead)
	p.order = slices.DeleteFunc(p.order, func(id ident.Peer) bool { return id == dead })
	p.tick(2)
	p.requireCorrect()
}

func TestLeaveLinksNeighbours(t *testing.T) {
	p, ids := build(t, 3, "a", "b", "c", "d", "e", "f")
	if err := p.nodes[ids[3]].Leave(); err != nil {
		t.Fatal(err)
	}
	p.settle() // no ticks: the leave protocol alone
	p.requireCorrect()
	if n := p.nodes[ids[3]].Stats().Sent[MsgLeave]; n == 0 || n > 2*3 {
		t.Errorf("leaver sent %d Leave messages", n)
	}
}

func TestRouteDelivers(t *testing.T) {
	p, ids := build(t, 3, "a", "b", "c", "d", "e", "f", "g", "h")
	src := p.nodes[ids[0]]
	if err := src.RouteTo(ids[5], []byte("offer")); err != nil {
		t.Fatal(err)
	}
	if err := src.RouteTo(ids[0], []byte("self")); err != nil {
		t.Fatal(err)
	}
	target := Coordinate(ids[6], 2) + 1 // just past g in space 2
	if err := src.Route(2, target, []byte("coord")); err != nil {
		t.Fatal(err)
	}
	if err := src.RouteTo(testID(77), []byte("nobody")); err != nil {
		t.Fatal(err)
	}
	p.settle()
	check := func(at ident.Peer, payload string) {
		t.Helper()
		for _, d := range p.got[at] {
			if string(d.Payload) == payload {
				if d.Origin != ids[0] {
					t.Errorf("%q: origin %v", payload, d.Origin)
				}
				return
			}
		}
		t.Errorf("%q not delivered at %v (got %v)", payload, at, p.got[at])
	}
	check(ids[5], "offer")
	check(ids[0], "self")
	check(ids[6], "coord")
	var undeliverable uint64
	for _, n := range p.nodes {
		undeliverable += n.Stats().Undeliverable
	}
	if undeliverable != 1 {
		t.Errorf("undeliverable = %d, want 1", undeliverable)
	}
}

func TestHeartbeatsEveryT(t *testing.T) {
	p, ids := build(t, 2, "a", "b", "c")
	n := p.nodes[ids[0]]
	before := n.Stats().Sent[MsgHeartbeat]
	T := DefaultConfig().HeartbeatTicks
	p.tick(4 * T)
	got := n.Stats().Sent[MsgHeartbeat] - before
	if want := uint64(4 * len(n.Neighbors())); got != want {
		t.Errorf("%d heartbeats in 4T to %d neighbours, want %d", got, len(n.Neighbors()), want)
	}
}

// A joiner whose member does not answer retries through its other
// contacts (here, after RetryTicks) and joins.
func TestJoinRetriesThroughOtherContacts(t *testing.T) {
	p, ids := build(t, 2, "a", "b", "c", "d")
	j, err := NewNode(ident.PeerFromPublicKey([]byte("joiner")), testConfig(2, 9))
	if err != nil {
		t.Fatal(err)
	}
	p.nodes[j.ID()] = j
	p.order = append(p.order, j.ID())
	dead := ident.PeerFromPublicKey([]byte("gone")) // a contact that has left: messages to it vanish
	if err := j.Join(dead); err != nil {
		t.Fatal(err)
	}
	j.AddContacts(dead, ids[2], j.ID(), ident.Peer{}) // duplicates, self and zero are ignored
	p.settle()
	if j.Joined() {
		t.Fatal("joined through a contact that does not exist")
	}
	p.tick(DefaultConfig().RetryTicks + 5)
	if !j.Joined() {
		t.Fatalf("not joined after a retry through %v", ids[2])
	}
	p.tick(2)
	p.requireCorrect()
}
