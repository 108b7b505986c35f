package scenario

import (
	"context"
	"errors"
	"testing"
)

func TestLookupUnknownNamesTheKnownOnes(t *testing.T) {
	Register(Scenario{Name: "test-only", Run: func(context.Context, Options) (string, error) { return "scenario=test-only", nil }})
	_, err := Lookup("no-such-scenario")
	if !errors.Is(err, ErrUnknownScenario) {
		t.Fatalf("Lookup(unknown) = %v, want ErrUnknownScenario", err)
	}
	s, err := Lookup("test-only")
	if err != nil || s.Name != "test-only" {
		t.Fatalf("Lookup(test-only) = %+v, %v", s, err)
	}
	line, _ := s.Run(context.Background(), Options{})
	if line != "scenario=test-only" {
		t.Fatalf("Run = %q", line)
	}
}
