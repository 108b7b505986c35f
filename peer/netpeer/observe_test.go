package netpeer

import (
	"errors"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// The observer frames round-trip, and anything else is refused.
func TestObserveWire(t *testing.T) {
	b := encodePull(7)
	if !isObserveFrame(b) || len(b) != pullFrameSize {
		t.Fatalf("pull frame % x", b)
	}
	if have, err := decodePull(b); err != nil || have != 7 {
		t.Fatalf("pull: %d, %v", have, err)
	}
	h := observedHeader{Round: 12, NumParams: 1234, Arch: "declared-abc"}
	m, err := encodeObserved(h)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := decodeObserved(m); err != nil || got != h {
		t.Fatalf("model header: %+v, %v", got, err)
	}
	for _, bad := range [][]byte{nil, b[:5], append(b, 0), m, {observeTag, 2, observePull, 0, 0, 0, 0, 0, 0, 0, 0}} {
		if _, err := decodePull(bad); !errors.Is(err, errObserveFrame) {
			t.Errorf("pull % x: %v", bad, err)
		}
	}
	for _, bad := range [][]byte{b, m[:len(m)-1], append(m, 0)} {
		if _, err := decodeObserved(bad); !errors.Is(err, errObserveFrame) {
			t.Errorf("model header % x: %v", bad, err)
		}
	}
}

// A peer serves at most maxObservers at once and forgets a silent one.
func TestObserverSetBounded(t *testing.T) {
	var s observerSet
	t0 := time.Unix(1000, 0)
	for i := range maxObservers {
		if o, added := s.admit(ident.Peer{byte(i + 1)}, t0); o == nil || !added {
			t.Fatalf("observer %d not admitted", i)
		}
	}
	if o, _ := s.admit(ident.Peer{99}, t0); o != nil {
		t.Fatal("admitted past maxObservers")
	}
	if _, added := s.admit(ident.Peer{1}, t0.Add(observerIdle)); added {
		t.Fatal("a known observer added again")
	}
	if !s.expire(t0.Add(observerIdle+time.Second)) || len(s.m) != 1 || !s.has(ident.Peer{1}) {
		t.Fatalf("after the idle time: %v", s.ids())
	}
	if o, added := s.admit(ident.Peer{99}, t0); o == nil || !added {
		t.Fatal("a place freed was not given")
	}
}

// An observer registers again at RescanEvery while registrations bring
// new contacts, and backs off, doubling to maxRescanBackoff times it,
// while they bring none (a task with fewer peers than MaxPeers).
func TestObserverRescanBacksOff(t *testing.T) {
	oc := DefaultObserveConfig()
	w := &watcher{cfg: oc, wait: oc.RescanEvery, targets: []ident.Peer{{1}, {2}}}
	for i := range 10 {
		w.backOff([]ident.Peer{{2}, {1}})
		want := min(oc.RescanEvery<<(i+1), maxRescanBackoff*oc.RescanEvery)
		if w.wait != want {
			t.Fatalf("after %d registrations bringing nothing new: wait %v, want %v", i+1, w.wait, want)
		}
	}
	w.backOff([]ident.Peer{{1}, {3}})
	if w.wait != oc.RescanEvery {
		t.Fatalf("a new contact left the wait at %v", w.wait)
	}
}
