package rtc

import (
	"fmt"
	"testing"
	"time"
)

// openCtl sends overlay frames both ways between p and q until each has
// sent one on the unordered channel (it opens beside the main one,
// possibly a little later).
func openCtl(t *testing.T, p, q *testPeer) {
	t.Helper()
	for k := 0; ; k++ {
		if k == 100 {
			t.Fatalf("no overlay frame on the unordered channel between %v and %v", p.ID(), q.ID())
		}
		if err := p.Send(q.ID(), []byte(fmt.Sprint("p", k))); err != nil {
			t.Fatal(err)
		}
		if err := q.Send(p.ID(), []byte(fmt.Sprint("q", k))); err != nil {
			t.Fatal(err)
		}
		if p.Stats().FramesOutUnordered > 0 && q.Stats().FramesOutUnordered > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond) // until the unordered channel opens (bounded above): no event says when
	}
}

// A transfer's result and routed signalling stand alone: they take the
// unordered channel, where they wait neither behind this peer's model
// chunks nor for a retransmission on the ordered stream (on a lossy
// 100-300 ms path they missed ConnectTimeout and TransferTimeout there:
// docs/RESULTS.md, netlab).
func TestResultsAndRoutedSignalsTakeTheUnorderedChannel(t *testing.T) {
	sig, a, b, c := star(t)
	openCtl(t, a, b)
	openCtl(t, a, c)
	waitFor(t, 5*time.Second, "the overlay frames to arrive", func() bool {
		return len(a.messages(b.ID())) == int(b.Stats().FramesOut) && len(a.messages(c.ID())) == int(c.Stats().FramesOut)
	})

	sig.stop() // b's connection to c is signalled through a
	before := a.Stats()
	if err := b.Send(c.ID(), []byte("via a")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "c to hear b", func() bool { return len(c.messages(b.ID())) == 1 })
	after := a.Stats()
	fwd, out, unordered := after.SignalsForwarded-before.SignalsForwarded, after.FramesOut-before.FramesOut, after.FramesOutUnordered-before.FramesOutUnordered
	if fwd < 2 || unordered != out {
		t.Errorf("a forwarded %d signals in %d frames, %d of them unordered: want the offer and the answer, all unordered", fwd, out, unordered)
	}

	before = b.Stats()
	if _, err := a.SendTransfer(b.ID(), nil, testModel(100), [32]byte{}, [32]byte{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the sender's ack", func() bool {
		var ok bool
		a.with(func() { ok = len(a.sent) == 1 })
		return ok
	})
	after = b.Stats()
	if out, unordered := after.FramesOut-before.FramesOut, after.FramesOutUnordered-before.FramesOutUnordered; out != 1 || unordered != 1 {
		t.Errorf("b answered the transfer with %d frames, %d unordered: want its result, unordered", out, unordered)
	}
}
