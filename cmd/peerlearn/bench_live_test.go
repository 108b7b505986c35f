package main

import (
	"errors"
	"maps"
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
