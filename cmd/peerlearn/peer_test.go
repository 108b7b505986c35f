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

func TestURLListFlag(t *testing.T) {
	l := &urlList{urls: []string{"ws://default/signal"}}
	if err := l.Set("ws://a/signal, ws://b/signal"); err != nil {
		t.Fatal(err)
	}
	if err := l.Set("ws://c/signal"); err != nil {
		t.Fatal(err)
	}
	if got := l.String(); got != "ws://a/signal,ws://b/signal,ws://c/signal" {
		t.Fatalf("after -signal a,b -signal c: %q", got)
	}
	if err := (&urlList{}).Set(" , "); err == nil {
		t.Fatal("an empty list was accepted")
	}
}
