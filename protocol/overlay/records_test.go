package overlay

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

var (
	recTask = ident.Task(sha256.Sum256([]byte("records")))
	recT0   = time.Unix(1_800_000_000, 0)
)

// chacha is a seeded reader for ed25519.GenerateKey.
type chacha struct{ r *rand.ChaCha8 }

func (c chacha) Read(p []byte) (int, error) { return c.r.Read(p) }

// admittance is a seeded admission server and the tokens it issued.
type admittance struct {
	is   *admission.Issuer
	bits int
	toks map[ident.Peer]admission.Token
	keys chacha
}

func newAdmittance(t testing.TB, seed byte, bits int) *admittance {
	_, key, _ := ed25519.GenerateKey(chacha{rand.NewChaCha8([32]byte{seed})})
	is, err := admission.NewIssuer(key, [32]byte{seed, 1}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return &admittance{is: is, bits: bits, toks: map[ident.Peer]admission.Token{},
		keys: chacha{rand.NewChaCha8([32]byte{seed, 2})}}
}

// admit makes a key, solves its proof of work and has it admitted at now.
func (a *admittance) admit(t testing.TB, now time.Time) admission.Token {
	pub, _, _ := ed25519.GenerateKey(a.keys)
	nonce, ok := admission.SolvePoW(recTask, pub, a.bits, 0, 1<<24)
	if !ok {
		t.Fatal("no proof of work")
	}
	tok, err := a.is.Issue(recTask, pub, nonce, a.bits, now)
	if err != nil {
		t.Fatal(err)
	}
	a.toks[tok.Peer()] = tok
	return tok
}

func (a *admittance) config(spaces int, seed uint64, self admission.Token) Config {
	c := testConfig(spaces, seed)
	c.Admission = &Admission{Policy: admission.Policy{ServerKey: a.is.PublicKey(), Task: recTask, PoWBits: a.bits}, Self: self}
	return c
}

func (a *admittance) coord(id ident.Peer, space int) Coord {
	tok := a.toks[id]
	return Coord(tok.Coordinate(space))
}

// admittedPump is newPump with admitted nodes.
func admittedPump(t *testing.T, a *admittance, spaces, n int) (*pump, []ident.Peer) {
	p := &pump{t: t, nodes: map[ident.Peer]*Node{}, got: map[ident.Peer][]Delivery{}}
	var ids []ident.Peer
	for k := range n {
		tok := a.admit(t, recT0)
		node, err := NewNode(tok.Peer(), a.config(spaces, uint64(k), tok))
		if err != nil {
			t.Fatal(err)
		}
		p.nodes[tok.Peer()] = node
		p.order = append(p.order, tok.Peer())
		ids = append(ids, tok.Peer())
	}
	return p, ids
}

// TestAdmittedOverlayConverges: nodes placed by their tokens build the
// correct overlay of the admitted coordinates (not of H(id, i)), with
// every message's records checked on the way.
func TestAdmittedOverlayConverges(t *testing.T) {
	a := newAdmittance(t, 1, 4)
	p, ids := admittedPump(t, a, 3, 12)
	for _, id := range ids[1:] {
		if err := p.nodes[id].Join(ids[0]); err != nil {
			t.Fatal(err)
		}
		p.settle()
	}
	p.tick(100)
	if c := CheckAt(p.tables(), 3, a.coord); !c.OK() {
		t.Fatalf("not correct under admitted placement: %+v\n%v", c, p.describe())
	}
	if c := Check(p.tables(), 3); c.OK() {
		t.Fatal("also correct under H(id, i): the placement did not change")
	}
	for _, id := range ids {
		st := p.nodes[id].Stats()
		if st.NoRecord+st.BadRecords+st.MissingRecords != 0 {
			t.Fatalf("%v: record refusals in an honest overlay: %+v", id, st)
		}
		cs, ok := p.nodes[ids[0]].Coordinates(id)
		if !ok || cs[1] != a.coord(id, 1) {
			t.Fatalf("%v: coordinates %v, %v", id, cs, ok)
		}
	}
}

// TestThirdPartyIDsNeedRecords: a Hint, Leave, DiscoverReply or routed
// Discover naming an ID without a record is refused, counted and changes
// nothing; with the record it is taken.
func TestThirdPartyIDsNeedRecords(t *testing.T) {
	a := newAdmittance(t, 1, 0)
	p, ids := admittedPump(t, a, 2, 2)
	x, y := ids[0], ids[1]
	if err := p.nodes[y].Join(x); err != nil {
		t.Fatal(err)
	}
	p.settle()
	stranger := a.admit(t, recT0)
	s := stranger.Peer()
	self := a.toks[y]
	for _, m := range []Message{
		{Type: MsgHint, Space: 0, Side: Succ, Peers: []ident.Peer{s}},
		{Type: MsgLeave, Peers: []ident.Peer{s, s, s, s}},
		{Type: MsgDiscoverReply, Space: 1, Peers: []ident.Peer{s, y}},
		{Type: MsgDiscover, Origin: s, Space: 0, Best: noScore},
	} {
		m.From, m.To, m.Records = y, x, []admission.Token{self}
		before := p.nodes[x].Stats().NoRecord
		b, err := Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := Receive(p.nodes[x], b); !errors.Is(err, ErrNoRecord) {
			t.Fatalf("%v naming %v without a record: %v", m.Type, s, err)
		}
		if got := p.nodes[x].Stats().NoRecord; got != before+1 {
			t.Fatalf("%v: NoRecord %d, want %d", m.Type, got, before+1)
		}
		if slices.Contains(p.nodes[x].Neighbors(), s) {
			t.Fatalf("%v: the stranger is in the table", m.Type)
		}
		if _, ok := p.nodes[x].Coordinates(s); ok {
			t.Fatalf("%v: the stranger is placed", m.Type)
		}
	}
	// The sender itself needs one too: a Join from an unknown ID.
	z := a.admit(t, recT0)
	if err := p.nodes[x].Step(Message{Type: MsgJoin, From: z.Peer(), To: x, Roles: 3}); !errors.Is(err, ErrNoRecord) {
		t.Fatalf("join without a record: %v", err)
	}
	// With the record the Hint is taken (and the stranger placed).
	m := Message{Type: MsgHint, From: y, To: x, Space: 0, Side: Succ, Peers: []ident.Peer{s}, Records: []admission.Token{self, stranger}}
	if err := p.nodes[x].Step(m); err != nil {
		t.Fatal(err)
	}
	if cs, ok := p.nodes[x].Coordinates(s); !ok || cs[0] != a.coord(s, 0) {
		t.Fatal("the stranger's record was not kept")
	}
}

// TestBadRecordsRefused: records of another server, another task, below
// the task's difficulty or too old are refused and counted; a node will
// not start with a token for another key.
func TestBadRecordsRefused(t *testing.T) {
	const bits = 6
	a := newAdmittance(t, 1, bits)
	p, ids := admittedPump(t, a, 2, 2)
	x, y := ids[0], ids[1]
	other := newAdmittance(t, 2, bits).admit(t, recT0) // another server's
	weak := func() admission.Token {
		pub, _, _ := ed25519.GenerateKey(a.keys)
		nonce := uint64(0)
		for admission.CheckPoW(recTask, pub, nonce, bits) {
			nonce++
		}
		tok, err := a.is.Issue(recTask, pub, nonce, 0, recT0) // a lax server
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}()
	old := a.admit(t, recT0.Add(-2*time.Hour))
	foreign := func() admission.Token {
		pub, _, _ := ed25519.GenerateKey(a.keys)
		tok, _ := a.is.Issue(ident.Task{9}, pub, 0, 0, recT0)
		return tok
	}()
	for name, rec := range map[string]admission.Token{"other server": other, "weak": weak, "old epoch": old, "other task": foreign} {
		m := Message{Type: MsgHint, From: y, To: x, Space: 0, Side: Succ, Peers: []ident.Peer{rec.Peer()},
			Records: []admission.Token{a.toks[y], rec}}
		before := p.nodes[x].Stats().BadRecords
		if err := p.nodes[x].Step(m); !errors.Is(err, ErrBadRecord) {
			t.Errorf("%s: %v", name, err)
		}
		if p.nodes[x].Stats().BadRecords != before+1 {
			t.Errorf("%s: not counted", name)
		}
	}
	if _, err := NewNode(x, a.config(2, 1, a.toks[y])); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("a node with another key's token: %v", err)
	}
}

// TestAdmittedPlacementMovesWithEpoch: the same key sits elsewhere in the
// next epoch, and nowhere near H(id, i).
func TestAdmittedPlacementMovesWithEpoch(t *testing.T) {
	a := newAdmittance(t, 1, 0)
	tok := a.admit(t, recT0)
	pub := tok.PublicKey[:]
	next, err := a.is.Issue(recTask, pub, 0, 0, recT0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	n1, err := NewNode(tok.Peer(), a.config(3, 1, tok))
	if err != nil {
		t.Fatal(err)
	}
	cfg := a.config(3, 1, next)
	n2, err := NewNode(tok.Peer(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		c1, c2 := n1.coords[i], n2.coords[i]
		if c1 == c2 || c1 == Coordinate(tok.Peer(), i) || c1 != Coord(admission.Place(tok.Peer(), tok.Salt, i)) {
			t.Fatalf("space %d: %v %v", i, c1, c2)
		}
	}
}

// TestRecordsCodec: records ride in a trailing section; Route carries
// none.
func TestRecordsCodec(t *testing.T) {
	a := newAdmittance(t, 1, 0)
	t1, t2 := a.admit(t, recT0), a.admit(t, recT0)
	m := Message{Type: MsgHint, From: t1.Peer(), To: t2.Peer(), Side: Succ, Peers: []ident.Peer{t2.Peer()}, Records: []admission.Token{t1, t2}}
	b, err := Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != m.EncodedSize() {
		t.Fatalf("%d bytes, EncodedSize %d", len(b), m.EncodedSize())
	}
	back, err := Unmarshal(b)
	if err != nil || !slices.Equal(back.Records, m.Records) {
		t.Fatalf("round trip: %v", err)
	}
	r := Message{Type: MsgRoute, From: t1.Peer(), To: t2.Peer(), Origin: t1.Peer(), Records: []admission.Token{t1}}
	if _, err := Marshal(r); !errors.Is(err, ErrMalformed) {
		t.Fatalf("route with records: %v", err)
	}
}

// TestRenewRecordKeepsThePlace: a node takes a renewal of its token (the
// same salt, a later epoch) and attaches it to its messages from then on;
// a token for another place is refused and changes nothing.
func TestRenewRecordKeepsThePlace(t *testing.T) {
	a := newAdmittance(t, 9, 0)
	t0 := time.Unix(1_800_000_000, 0)
	self := a.admit(t, t0)
	n, err := NewNode(self.Peer(), a.config(2, 1, self))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := n.Coordinates(self.Peer())
	other := a.admit(t, t0) // another key's token
	if err := n.RenewRecord(other); !errors.Is(err, ErrBadRecord) {
		t.Fatalf("another peer's token taken as a renewal: %v", err)
	}
	moved := self
	moved.Salt[0] ^= 1 // another place (and a broken signature)
	if err := n.RenewRecord(moved); !errors.Is(err, ErrBadRecord) {
		t.Fatalf("a token for another place taken as a renewal: %v", err)
	}
	renewed := a.is.Renew(self, t0.Add(90*time.Minute))
	if err := n.RenewRecord(renewed); err != nil {
		t.Fatal(err)
	}
	after, _ := n.Coordinates(self.Peer())
	if !slices.Equal(before, after) {
		t.Fatal("the renewal moved the node")
	}
	if got := n.cfg.Admission.Self; got != renewed {
		t.Fatalf("own record epoch %d, want the renewal's %d", got.Epoch, renewed.Epoch)
	}
}
