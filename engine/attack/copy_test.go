package attack

import (
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// TestBeyondCopies: against "copy25-fedlay" a receiver whose last step
// was 2 long treats models within 0.5 of its own as copies; the attacker
// keeps its near-copies 1.1 times that out. A rule without copies, or a
// receiver without an Origin, gives 0.
func TestBeyondCopies(t *testing.T) {
	self := aggregate.Contribution{Params: []float32{2, 0}, Origin: []float32{0, 0}}
	rule, err := aggregate.New("copy25-fedlay")
	if err != nil {
		t.Fatal(err)
	}
	if d := BeyondCopies(rule, self); math.Abs(d-0.55) > 1e-12 {
		t.Errorf("copy25-fedlay: %v, want 0.55", d)
	}
	if d := BeyondCopies(rule, aggregate.Contribution{Params: self.Params}); d != 0 {
		t.Errorf("without an Origin: %v, want 0", d)
	}
	plain, err := aggregate.New("fedlay")
	if err != nil {
		t.Fatal(err)
	}
	if d := BeyondCopies(plain, self); d != 0 {
		t.Errorf("fedlay: %v, want 0", d)
	}
}

// TestBeyondEcho: a receiver whose last step was 2 long, with the check's
// echo bound at 0.3, takes models within 0.6 of its own for echoes; the
// attacker keeps its near-copies 1.1 times that out. No bound, or no
// Origin, gives 0.
func TestBeyondEcho(t *testing.T) {
	self := aggregate.Contribution{Params: []float32{2, 0}, Origin: []float32{0, 0}}
	if d := BeyondEcho(0.3, self); math.Abs(d-0.66) > 1e-12 {
		t.Errorf("echo 0.3: %v, want 0.66", d)
	}
	if d := BeyondEcho(0, self); d != 0 {
		t.Errorf("no echo bound: %v, want 0", d)
	}
	if d := BeyondEcho(0.3, aggregate.Contribution{Params: self.Params}); d != 0 {
		t.Errorf("without an Origin: %v, want 0", d)
	}
}
