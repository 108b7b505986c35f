package server

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/signal"
)

// An observer (signal.Hello.Observer) is welcomed with contacts like a
// peer, but it is never handed out as a contact (nobody can join an
// overlay through it: it runs none), and GET /tasks counts it apart
// from the task's peers.
func TestObserverNeverAContact(t *testing.T) {
	ts := startServer(t, nil)
	dial(t, ts, 1) // the task's first peer
	cc := clientConfig()
	cc.Observer = true
	obs, err := signal.Dial(context.Background(), ts.wsURL(), identity(t, 2), ts.tid, cc)
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	if w := obs.Welcome(); len(w.Contacts) != 1 || w.Contacts[0] != identity(t, 1).ID() {
		t.Fatalf("observer's contacts %v, want the one peer", w.Contacts)
	}
	l := getTasks(t, ts)
	if tt := l.Tasks[0]; tt.Peers != 1 || tt.Observers != 1 {
		t.Fatalf("listed peers=%d observers=%d, want 1 and 1", tt.Peers, tt.Observers)
	}
	for b := byte(3); b < 6; b++ {
		c := dial(t, ts, b)
		if slices.Contains(c.Welcome().Contacts, identity(t, 2).ID()) {
			t.Fatalf("peer %d got the observer as a contact: %v", b, c.Welcome().Contacts)
		}
		if len(c.Welcome().Contacts) == 0 {
			t.Fatalf("peer %d got no contact", b)
		}
	}
}

// Observers have a bound of their own: past MaxObservers the server
// refuses one with task-full, and peers still register.
func TestObserversBounded(t *testing.T) {
	ts := startServer(t, nil)
	cc := clientConfig()
	cc.Observer = true
	for b := range byte(MaxObservers) {
		c, err := signal.Dial(context.Background(), ts.wsURL(), identity(t, 10+b), ts.tid, cc)
		if err != nil {
			t.Fatalf("observer %d: %v", b, err)
		}
		defer c.Close()
	}
	_, err := signal.Dial(context.Background(), ts.wsURL(), identity(t, 100), ts.tid, cc)
	if !errors.Is(err, &signal.Refusal{Code: signal.CodeTaskFull}) {
		t.Fatalf("observer past the bound: %v, want task-full", err)
	}
	dial(t, ts, 1) // a peer is not counted against observers
}

// An observer trains nothing: its summaries are refused and counted, and
// the task's progress stays as its peers make it.
func TestObserverSummaryRefused(t *testing.T) {
	ts := startServer(t, nil)
	step := steppedClock(ts)
	dial(t, ts, 1)
	cc := clientConfig()
	cc.Observer = true
	obs, err := signal.Dial(context.Background(), ts.wsURL(), identity(t, 2), ts.tid, cc)
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	step(time.Minute)
	sendSummary(t, ts, obs, 2, signal.Summary{Seq: 1, Accuracy: 0.99, Samples: 1000})
	wantRefusal(t, obs, signal.CodeRateLimited)
	st := ts.Stats()
	if st.SummariesCounted != 0 || st.SummariesRefused != 1 {
		t.Fatalf("counted %d refused %d, want 0 and 1", st.SummariesCounted, st.SummariesRefused)
	}
	if pt := st.Progress[ts.tid]; pt.Reporting != 0 || pt.Samples != 0 || pt.Peers != 1 {
		t.Errorf("progress %+v: the observer's summary or presence counted", pt)
	}
}
