package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// -spaces is refused with a message pointing at the spec field, before
// anything else happens: L is the task's.
func TestPeerRefusesSpaces(t *testing.T) {
	err := runPeer(context.Background(), []string{"-spaces", "3", "-signal", "ws://127.0.0.1:1/signal"}, io.Discard, func(string, ...any) {})
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), `"spaces" in the task spec`) {
		t.Fatalf("-spaces 3: %v", err)
	}
}
