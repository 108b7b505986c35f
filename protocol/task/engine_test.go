package task

import (
	"errors"
	"testing"
)

// refusingEngine refuses one architecture and records what it was asked.
type refusingEngine struct {
	arch  string
	asked int
}

var errNoArch = errors.New("engine: no such architecture")

func (e *refusingEngine) CheckSpec(s Spec) error {
	e.asked++
	if s.Arch == e.arch {
		return errNoArch
	}
	return nil
}

func TestValidateForAsksTheEngine(t *testing.T) {
	e := &refusingEngine{arch: "small-cnn"}
	s := golden()
	if err := s.ValidateFor(e); err != nil || e.asked != 1 {
		t.Fatalf("accepted spec: %v (engine asked %d times)", err, e.asked)
	}
	s.Arch = "small-cnn"
	if err := s.Validate(); err != nil {
		t.Fatalf("Validate alone does not ask the engine: %v", err)
	}
	if err := s.ValidateFor(e); !errors.Is(err, ErrInvalid) || !errors.Is(err, errNoArch) {
		t.Fatalf("engine's refusal: %v, want ErrInvalid and the engine's error", err)
	}
	// An invalid spec never reaches the engine.
	s.Batch, e.asked = 0, 0
	if err := s.ValidateFor(e); !errors.Is(err, ErrInvalid) || e.asked != 0 {
		t.Fatalf("invalid spec: %v, engine asked %d times", err, e.asked)
	}
}

func TestParseFor(t *testing.T) {
	e := &refusingEngine{arch: "mlp"}
	if _, err := ParseFor([]byte(goldenCanonical), e); !errors.Is(err, errNoArch) {
		t.Fatalf("refused arch: %v", err)
	}
	e.arch = "small-cnn"
	s, err := ParseFor([]byte(goldenCanonical), e)
	if err != nil || s != golden() {
		t.Fatalf("accepted: %+v, %v", s, err)
	}
	if _, err := ParseFor([]byte(`{"version":1}`), e); !errors.Is(err, ErrInvalid) {
		t.Fatalf("invalid spec: %v", err)
	}
}
