package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/signal"
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

// -health-moves is refused where nothing would read it (without -health,
// or -learn=false: only the learner's check asks to move) and below 0,
// before anything else happens.
func TestPeerHealthMovesFlag(t *testing.T) {
	for _, args := range [][]string{
		{"-health-moves", "2"},
		{"-health-moves", "0"},
		{"-health", "-learn=false", "-health-moves", "1"},
		{"-health", "-health-moves", "-1"},
	} {
		err := runPeer(context.Background(), append(args, "-signal", "ws://127.0.0.1:1/signal"), io.Discard, func(string, ...any) {})
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "-health-moves") {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// -suspend is refused without a learner, and for a task whose rule is
// not a clipped one (at the learner's build, when the task is known);
// on a clipped rule it turns on the Suspend form, kept in asynchronous
// exchange, and the kept share.
func TestPeerSuspendFlag(t *testing.T) {
	err := runPeer(context.Background(), []string{"-suspend", "-learn=false", "-signal", "ws://127.0.0.1:1/signal"}, io.Discard, func(string, ...any) {})
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "-suspend") {
		t.Errorf("-suspend -learn=false: %v", err)
	}
	tune := tuneLearner(nil, false, true)
	plain := learn.DefaultConfig()
	plain.Aggregator = "fedlay"
	if err := tune(&plain, 10); !errors.Is(err, node.ErrConfig) || !strings.Contains(err.Error(), "-suspend") {
		t.Errorf("fedlay: %v, want a refusal", err)
	}
	c := learn.DefaultConfig()
	c.Aggregator = "clipped-fedlay"
	if err := tune(&c, 10); err != nil {
		t.Fatal(err)
	}
	if d := c.Reputation.Drift; !d.Suspend || !d.Async || d.Limit <= 0 || !c.Clip.SuspendedKeepShare {
		t.Errorf("clipped-fedlay: drift %+v, kept share %v", d, c.Clip.SuspendedKeepShare)
	}
	if err := c.Reputation.Validate(); err != nil {
		t.Errorf("the tuned reputation: %v", err)
	}
}

// A move's new key replaces the -key file's, so that a restart does not
// take the peer back to the place it left.
func TestWriteIdentity(t *testing.T) {
	file := t.TempDir() + "/peer.key"
	first, err := loadIdentity(file) // creates it
	if err != nil {
		t.Fatal(err)
	}
	moved, err := signal.NewIdentity(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeIdentity(file, moved); err != nil {
		t.Fatal(err)
	}
	got, err := loadIdentity(file)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID() != moved.ID() || got.ID() == first.ID() {
		t.Fatalf("the file holds %v after moving from %v to %v", got.ID(), first.ID(), moved.ID())
	}
}
