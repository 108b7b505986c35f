package node

import (
	"bytes"
	"crypto/ed25519"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestNodeRenewsItsToken: an admitted peer whose token is due registers
// again on the Registrar's schedule; the welcome's token, a renewal of
// its own (the same place, a later epoch), is taken: handed to the shell
// (Ready.Token) to present from now on, with the renewal's clock moved
// (no further renewal is due). A token of another place is refused and
// the peer keeps its own.
func TestNodeRenewsItsToken(t *testing.T) {
	const epoch = 48 * time.Hour // longer than RenewBefore: not due at first
	is, err := admission.NewIssuer(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32)), [32]byte{1}, epoch)
	if err != nil {
		t.Fatal(err)
	}
	task := ident.Task{9}
	start := time.Unix(1_800_000_000, 0)
	// Two admitted peers, a and the one under test, joined through a.
	mk := func(seed byte, contacts []ident.Peer) (*Node, []byte) {
		pub := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, 32)).Public().(ed25519.PublicKey)
		tok, err := is.Issue(task, pub, 0, 0, start)
		if err != nil {
			t.Fatal(err)
		}
		ov := overlay.DefaultConfig()
		ov.Spaces = 2
		ov.Admission = &overlay.Admission{Policy: admission.Policy{ServerKey: is.PublicKey(), Task: task}, Self: tok}
		n, err := New(Config{
			ID: ident.PeerFromPublicKey(pub), Overlay: ov, Token: tok.Marshal(), Server: "s", Contacts: contacts,
			Registrar: RegistrarConfig{Servers: []string{"s"}, Rand: rand.New(rand.NewPCG(uint64(seed), 2))},
		}, start)
		if err != nil {
			t.Fatal(err)
		}
		return n, tok.Marshal()
	}
	a, _ := mk(5, nil)
	n, raw := mk(3, []ident.Peer{a.ID()})
	tok, err := admission.Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	var rd Ready
	// deliver carries a's Ready out and n's (kept in rd for the test),
	// until neither has anything.
	deliver := func() {
		rd = Ready{}
		for a.HasReady() || n.HasReady() {
			for _, e := range a.Ready().Overlay {
				n.Step(LinkUp{Peer: a.ID()})
				n.Step(OverlayMessage{From: a.ID(), Data: e.Data})
			}
			r := n.Ready()
			for _, e := range r.Overlay {
				a.Step(LinkUp{Peer: n.ID()})
				a.Step(OverlayMessage{From: n.ID(), Data: e.Data})
			}
			rd.Dials, rd.Decisions = append(rd.Dials, r.Dials...), append(rd.Decisions, r.Decisions...)
			rd.Logs = append(rd.Logs, r.Logs...)
			if r.Token != nil {
				rd.Token = r.Token
			}
		}
	}
	now := start
	for range 20 {
		now = now.Add(100 * time.Millisecond)
		a.Tick(now)
		n.Tick(now)
		deliver()
	}
	if !n.Joined() || len(n.Neighbors()) != 1 || len(rd.Dials) != 0 {
		t.Fatalf("joined %v, neighbours %v, dials %+v", n.Joined(), n.Neighbors(), rd.Dials)
	}

	// The token lasts to the end of the next epoch; RenewBefore (half
	// the default epoch) before that it is due.
	now = time.Unix(tok.NotAfter, 0).Add(-time.Hour)
	a.Tick(now)
	n.Tick(now)
	deliver()
	if len(rd.Dials) != 1 || rd.Dials[0].Why != Renew {
		t.Fatalf("a due token: dials %+v, want one renewal", rd.Dials)
	}
	renewed := is.Renew(tok, now)
	if renewed.Epoch <= tok.Epoch {
		t.Fatalf("the issuer did not renew: epoch %d", renewed.Epoch)
	}
	if err := n.Step(Registered{Seq: rd.Dials[0].Seq, Outcome: Outcome{Why: Renew, URL: "s"}, Token: renewed.Marshal()}); err != nil {
		t.Fatal(err)
	}
	deliver()
	if !bytes.Equal(rd.Token, renewed.Marshal()) || len(rd.Decisions) != 1 || rd.Decisions[0].Seq != 1 {
		t.Fatalf("after the renewal: token %x, decisions %+v", rd.Token, rd.Decisions)
	}
	if !strings.Contains(logText(rd), "admission renewed for epoch") {
		t.Errorf("no log line for the renewal: %q", logText(rd))
	}
	if n.facts().RenewalDue {
		t.Error("the renewed token is still due")
	}

	// Another place's token (another key) is refused; the peer keeps its
	// own and says so.
	other, err := is.Issue(task, ed25519.NewKeyFromSeed(bytes.Repeat([]byte{4}, 32)).Public().(ed25519.PublicKey), 0, 0, now)
	if err != nil {
		t.Fatal(err)
	}
	n.checkToken(other.Marshal())
	deliver()
	if rd.Token != nil || !bytes.Equal(n.token, renewed.Marshal()) || !strings.Contains(logText(rd), "keeping the first") {
		t.Errorf("another place's token: handed out %x, kept %x, log %q", rd.Token, n.token, logText(rd))
	}
}

func logText(rd Ready) string {
	var b strings.Builder
	for _, l := range rd.Logs {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}
