package main

import (
	"context"
	"errors"
	"flag"
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

// -health-moves is refused where nothing would read it (with
// -health=false, or -learn=false: only the learner's check asks to move)
// and below 0, before anything else happens.
func TestPeerHealthMovesFlag(t *testing.T) {
	for _, args := range [][]string{
		{"-health=false", "-health-moves", "2"},
		{"-health=false", "-health-moves", "0"},
		{"-learn=false", "-health-moves", "1"},
		{"-health", "-health-moves", "-1"},
	} {
		err := runPeer(context.Background(), append(args, "-signal", "ws://127.0.0.1:1/signal"), io.Discard, func(string, ...any) {})
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "-health-moves") {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// -suspend and -health are refused without a learner; the flags reach
// the learner's configuration as node.Defences (whose rules are
// peer/node's TestDefences): unset, each is Auto; -suspend=false and
// -health=false turn them off; -suspend on a rule that is not a clipped
// one is refused at the learner's build, when the task is known.
func TestPeerSuspendFlag(t *testing.T) {
	for _, args := range [][]string{{"-suspend", "-learn=false"}, {"-health", "-learn=false"}} {
		err := runPeer(context.Background(), append(args, "-signal", "ws://127.0.0.1:1/signal"), io.Discard, func(string, ...any) {})
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: %v", args, err)
		}
	}
	for _, tc := range []struct {
		args          []string
		health, drift bool
	}{{nil, true, true}, {[]string{"-suspend=false"}, true, false}, {[]string{"-health=false"}, false, true}, {[]string{"-health=false", "-suspend=false"}, false, false}} {
		var h, s choiceFlag
		fs := flag.NewFlagSet("peer", flag.ContinueOnError)
		fs.Var(&h, "health", "")
		fs.Var(&s, "suspend", "")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		c := learn.DefaultConfig()
		c.Aggregator = "clipped-fedlay"
		if err := tuneLearner(nil, node.Defences{Health: h.c, Suspend: s.c})(&c, 10); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if c.Health.On != tc.health || c.Reputation.Drift.Suspend != tc.drift {
			t.Errorf("%v on clipped-fedlay: health %v, suspension %v; want %v, %v", tc.args, c.Health.On, c.Reputation.Drift.Suspend, tc.health, tc.drift)
		}
	}
	plain := learn.DefaultConfig()
	plain.Aggregator = "fedlay"
	if err := tuneLearner(nil, node.Defences{Suspend: node.On})(&plain, 10); !errors.Is(err, node.ErrConfig) || !strings.Contains(err.Error(), "-suspend") {
		t.Errorf("-suspend on fedlay: %v, want a refusal", err)
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
