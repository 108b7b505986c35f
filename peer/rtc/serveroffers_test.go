package rtc

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// offerSDP is a valid offer without candidates (nothing gathered);
// extra lines (candidates) go at its end.
func offerSDP(t *testing.T, extra string) string {
	t.Helper()
	pc, err := webrtc.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if _, err := pc.CreateDataChannel("peerlearn", nil); err != nil {
		t.Fatal(err)
	}
	o, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	return o.SDP + extra
}

// relayOffer sends a signed offer from fake's identity to to through the
// server.
func relayOffer(t *testing.T, c *signal.Client, fake signal.Identity, to ident.Peer, session uint64, sdp string) {
	t.Helper()
	body, err := EncodeSession(Session{Kind: SessionOffer, To: to, ID: session, UnixMilli: time.Now().UnixMilli(), SDP: sdp}, fake)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(context.Background(), to, signal.RelayOffer, base64.StdEncoding.EncodeToString(body)); err != nil {
		t.Fatal(err)
	}
}

// Contact claims end to end, with real peers and a real server: an
// honest newcomer's connection is confirmed by its contact (the contact
// reports the channel it answered), so the server makes it established.
// Fakes registered with the server send signed offers relayed to the
// same contact: one without a candidate (refused on arrival), one whose
// only candidate is dead (answered, never open): each is charged to its
// sender (a dead offer, its budget used up: its next offer refused), the
// contact confirms neither, and neither fake's claim makes it
// established.
func TestServerRelayedDeadOffers(t *testing.T) {
	sig := startSignal(t)
	a := newTestPeer(t, sig, 1, func(c *Config) { c.ConnectTimeout = 3 * time.Second })
	b := newTestPeer(t, sig, 2, nil) // contact: a
	if err := b.Send(a.ID(), []byte("hi")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "b's claim confirmed by a", func() bool {
		st := sig.srv.Stats()
		return st.Claims.Confirmed == 1 && st.Established[sig.task] == 2
	})

	u0 := sig.srv.Stats().Claims.Unconfirmed // b's, if its claim came before a's confirmation
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i, extra := range []string{"", "a=candidate:1 1 udp 2130706431 127.0.0.1 9 typ host\r\n"} {
		fake := testIdentity(t, byte(9+i))
		c, err := signal.Dial(ctx, sig.url, fake, sig.task, signal.DefaultClientConfig())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		relayOffer(t, c, fake, a.ID(), 1, offerSDP(t, extra))
		waitFor(t, 15*time.Second, "the dead offer charged", func() bool { return a.Stats().DeadOffers == uint64(i+1) })
		relayOffer(t, c, fake, a.ID(), 2, offerSDP(t, "a=candidate:1 1 udp 2130706431 127.0.0.1 10 typ host\r\n"))
		waitFor(t, 5*time.Second, "the next offer refused", func() bool { return a.Stats().ServerOffersRefused == uint64(i+1) })
		if err := c.Connected(ctx, a.ID()); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 5*time.Second, "the fakes' claims counted", func() bool { return sig.srv.Stats().Claims.Unconfirmed == u0+2 })
	st := sig.srv.Stats()
	if st.Established[sig.task] != 2 || st.Claims.Confirmations != 1 {
		t.Fatalf("established %d, claims %+v: want the 2 honest peers and a's one confirmation", st.Established[sig.task], st.Claims)
	}
}
