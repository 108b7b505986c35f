package gossip

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// RestoreAge and RoundNode.Resume act on a node that has done nothing
// yet and refuse what it could not have reached.
func TestResumeRefuses(t *testing.T) {
	id := ident.Peer{1}
	n, err := NewNode(Config{ID: id, Arch: "t", NumParams: 2, Period: 2}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.RestoreAge(5); !errors.Is(err, ErrConfig) {
		t.Errorf("RestoreAge before Init: %v", err)
	}
	if err := n.Init([]float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := n.RestoreAge(MaxAge + 1); !errors.Is(err, ErrConfig) {
		t.Errorf("RestoreAge above MaxAge: %v", err)
	}
	if err := n.RestoreAge(40); err != nil {
		t.Fatal(err)
	}
	if _, age := n.Model(); age != 40 {
		t.Fatalf("age %d after RestoreAge(40)", age)
	}
	if err := n.RestoreAge(50); !errors.Is(err, ErrConfig) {
		t.Errorf("RestoreAge twice: %v", err)
	}

	newRound := func(max int) *RoundNode {
		r, err := NewRoundNode(RoundConfig{ID: id, Arch: "t", NumParams: 2, Timeout: 3, MaxRounds: max}, []float32{1, 2})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if err := newRound(4).Resume(5); !errors.Is(err, ErrConfig) {
		t.Errorf("Resume past MaxRounds: %v", err)
	}
	started := newRound(4)
	started.Ready()
	if err := started.ReportTrained([]float32{3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := started.Resume(2); !errors.Is(err, ErrConfig) {
		t.Errorf("Resume of a node that trained: %v", err)
	}
	r := newRound(4)
	if err := r.Resume(2); err != nil {
		t.Fatal(err)
	}
	if k, training := r.Round(); k != 2 || !training || r.Done() {
		t.Fatalf("resumed at 2: round %d, training %v, done %v", k, training, r.Done())
	}
	if _, tr := r.Ready(); tr == nil || tr[0] != 1 {
		t.Fatalf("resumed at 2: trains %v, want the model it was built from", tr)
	}
	d := newRound(4)
	if err := d.Resume(4); err != nil || !d.Done() || d.HasReady() {
		t.Fatalf("resumed at MaxRounds: %v, done %v, ready %v", err, d.Done(), d.HasReady())
	}
}
