package main

import (
	"errors"
	"maps"
	"slices"
	"testing"
)

// -rounds-for takes method=rounds pairs for methods bench live runs,
// each once, and refuses anything else as a usage error.
func TestParseRoundsFor(t *testing.T) {
	methods := []string{"gossip", "dpsgd", "pens", "plexus"}
	good := map[string]map[string]int{
		"":                    {},
		"gossip=24":           {"gossip": 24},
		"gossip=24,plexus=16": {"gossip": 24, "plexus": 16},
	}
	for arg, want := range good {
		got, err := parseRoundsFor(arg, methods)
		if err != nil || !maps.Equal(got, want) {
			t.Errorf("%q: %v, %v; want %v", arg, got, err, want)
		}
	}
	for _, arg := range []string{"gossip", "gossip=", "gossip=0", "gossip=-1", "gossip=x", "fedlay=3", "gossip=2,gossip=3", "gossip=2,", "=2"} {
		if got, err := parseRoundsFor(arg, methods); !errors.Is(err, errUsage) {
			t.Errorf("%q: %v, %v; want a usage error", arg, got, err)
		}
	}
	if _, err := parseRoundsFor("plexus=3", []string{"gossip"}); !errors.Is(err, errUsage) {
		t.Errorf("a method not run: %v", err)
	}
}

// Each real peer's speed is its samples over its seconds; one that did
// not train gets all the others' together; none trained: nil.
func TestPeerSpeeds(t *testing.T) {
	got := peerSpeeds([]float64{2, 0, 1}, []int{1000, 0, 2000})
	if want := []float64{500, 1000, 2000}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
	if got := peerSpeeds([]float64{0, 0}, []int{0, 0}); got != nil {
		t.Errorf("no trainings: %v", got)
	}
}
