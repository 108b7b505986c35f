package rtc

import (
	"fmt"
	"testing"
	"time"
)

// TestOverlayFramesTakeTheUnorderedChannel: once a connection's overlay
// channel is open, overlay frames go on it (both ways: the answerer
// found it by its label) and application frames stay on the ordered
// main channel.
func TestOverlayFramesTakeTheUnorderedChannel(t *testing.T) {
	sig := startSignal(t)
	a := newTestPeer(t, sig, 1, nil)
	b := newTestPeer(t, sig, 2, nil) // its welcome lists a as a contact
	if err := b.Send(a.ID(), []byte("first")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "a to hear b", func() bool { return len(a.messages(b.ID())) == 1 })
	// The overlay channel opens beside the main one, possibly a little
	// later: send until a frame goes on it each way.
	for k := 0; ; k++ {
		if k == 100 {
			t.Fatalf("no overlay frame on the unordered channel: a %+v, b %+v", a.Stats(), b.Stats())
		}
		if err := b.Send(a.ID(), []byte(fmt.Sprint("b", k))); err != nil {
			t.Fatal(err)
		}
		if err := a.Send(b.ID(), []byte(fmt.Sprint("a", k))); err != nil {
			t.Fatal(err)
		}
		if a.Stats().FramesOutUnordered > 0 && b.Stats().FramesOutUnordered > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond) // until the unordered channel opens (bounded above): no event says when
	}
	waitFor(t, 5*time.Second, "every overlay frame to arrive", func() bool {
		return len(a.messages(b.ID())) == int(b.Stats().FramesOut) && len(b.messages(a.ID())) == int(a.Stats().FramesOut)
	})
	before, n := a.Stats().FramesOutUnordered, len(b.messages(a.ID()))
	if err := a.SendApp(b.ID(), []byte("app")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, fmt.Sprintf("the app frame to arrive (b: %+v)", b.Stats()), func() bool { return len(b.messages(a.ID())) == n+1 })
	if got := a.Stats().FramesOutUnordered; got != before {
		t.Fatalf("an application frame went on the unordered channel (%d -> %d)", before, got)
	}
}
