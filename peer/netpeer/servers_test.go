package netpeer

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/signal"
)

func TestConfigServersDedupesAndKeepsSignalURLFirst(t *testing.T) {
	c := Config{SignalURL: "ws://a/signal", SignalURLs: []string{"ws://b/signal", "", "ws://a/signal", "ws://c/signal"}}
	if got, want := c.servers(), []string{"ws://a/signal", "ws://b/signal", "ws://c/signal"}; !slices.Equal(got, want) {
		t.Fatalf("servers() = %v, want %v", got, want)
	}
	if got := (Config{SignalURLs: []string{"ws://b/signal"}}).servers(); !slices.Equal(got, []string{"ws://b/signal"}) {
		t.Fatalf("servers() without SignalURL = %v", got)
	}
	if got := (Config{}).servers(); len(got) != 0 {
		t.Fatalf("servers() of an empty config = %v", got)
	}
}

func TestValidateWantsASignallingServer(t *testing.T) {
	c := testPeerConfig(t, "", [32]byte{1}, 1, nil)
	c.SignalURL, c.SignalURLs = "", nil
	if err := c.Validate(); !errors.Is(err, ErrConfig) {
		t.Fatalf("no server: Validate() = %v, want ErrConfig", err)
	}
	c.SignalURLs = []string{"ws://127.0.0.1:1/signal"}
	if err := c.Validate(); err != nil {
		t.Fatalf("SignalURLs only: %v", err)
	}
	c.BridgeEvery = -1
	if err := c.Validate(); !errors.Is(err, ErrConfig) {
		t.Fatalf("BridgeEvery < 0: Validate() = %v, want ErrConfig", err)
	}
}

func TestShuffledPutsEachServerFirstSometimes(t *testing.T) {
	urls := []string{"a", "b", "c"}
	rng := rand.New(rand.NewPCG(1, 2))
	first := map[string]int{}
	for range 300 {
		s := shuffled(urls, rng)
		if !slices.Equal(slices.Sorted(slices.Values(s)), urls) {
			t.Fatalf("shuffled(%v) = %v", urls, s)
		}
		first[s[0]]++
	}
	for _, u := range urls {
		if first[u] < 60 { // 100 expected; 60 is > 4 standard deviations below
			t.Errorf("%s first in %d of 300 shuffles", u, first[u])
		}
	}
	if !slices.Equal(urls, []string{"a", "b", "c"}) {
		t.Errorf("shuffled changed its argument: %v", urls)
	}
}

func TestDialEachTakesTheFirstThatAnswers(t *testing.T) {
	errDown := errors.New("down")
	var tried []string
	ok := &signal.Client{}
	dial := func(_ context.Context, u string) (*signal.Client, error) {
		tried = append(tried, u)
		if u == "up" {
			return ok, nil
		}
		return nil, errDown
	}
	c, u, err := dialEach(context.Background(), []string{"x", "up", "y"}, dial, func(string, ...any) {})
	if err != nil || c != ok || u != "up" || !slices.Equal(tried, []string{"x", "up"}) {
		t.Fatalf("dialEach = %v, %q, %v after trying %v", c, u, err, tried)
	}
	tried = nil
	if _, _, err := dialEach(context.Background(), []string{"x", "y"}, dial, func(string, ...any) {}); !errors.Is(err, errDown) || len(tried) != 2 {
		t.Fatalf("all down: err %v after trying %v", err, tried)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tried = nil
	if _, _, err := dialEach(ctx, []string{"x", "y"}, dial, func(string, ...any) {}); err == nil || len(tried) != 1 {
		t.Fatalf("cancelled: err %v after trying %v", err, tried)
	}
}

func TestBridgeModeNamesRoundTrip(t *testing.T) {
	for _, m := range []BridgeMode{BridgeWhenSplit, BridgeAlways, BridgeNever} {
		if got, err := ParseBridgeMode(m.String()); err != nil || got != m {
			t.Errorf("ParseBridgeMode(%q) = %v, %v", m, got, err)
		}
	}
	if _, err := ParseBridgeMode("sometimes"); err == nil {
		t.Error("an unknown mode was accepted")
	}
	if (Config{}).BridgeAlone != BridgeWhenSplit {
		t.Error("the zero Config does not bridge when split")
	}
	c := testPeerConfig(t, "ws://127.0.0.1:1/signal", [32]byte{1}, 1, nil)
	c.BridgeAlone = BridgeNever + 1
	if err := c.Validate(); !errors.Is(err, ErrConfig) {
		t.Fatalf("BridgeAlone %v: Validate() = %v, want ErrConfig", c.BridgeAlone, err)
	}
}

// TestBridgeWhenSplitBacksOff follows BridgeWhenSplit's schedule: nothing
// while no failed neighbour is missing, a move about every BridgeEvery
// after a failure, half as often after each move up to the cap, and back
// to every BridgeEvery on a new failure.
func TestBridgeWhenSplitBacksOff(t *testing.T) {
	const every = time.Minute
	b := bridge{every: every, rng: rand.New(rand.NewPCG(3, 4))}
	now := time.Unix(1000, 0)
	if b.suspectSplit(0, 0, 7, now) || !b.next.IsZero() {
		t.Fatal("a move was planned with no failure seen")
	}
	if !b.suspectSplit(1, 1, 7, now) {
		t.Fatal("a failed neighbour not back does not call for a move")
	}
	if d := b.next.Sub(now); d < every/2 || d > 3*every/2 {
		t.Fatalf("first move due in %v, want %v-%v", d, every/2, 3*every/2)
	}
	for moves := 1; moves <= bridgeGraceMoves+maxBridgeBackoff+2; moves++ {
		b.moving(now, true)
		want := every << min(max(moves-bridgeGraceMoves, 0), maxBridgeBackoff)
		if d := b.next.Sub(now); d < want/2 || d > 3*want/2 {
			t.Fatalf("after %d moves: next in %v, want %v-%v", moves, d, want/2, 3*want/2)
		}
		if !b.suspectSplit(1, 1, 7, now) {
			t.Fatal("still split, but no move planned")
		}
	}
	if !b.suspectSplit(2, 2, 7, now) || b.level != 0 {
		t.Fatalf("a new failure left the back-off at level %d", b.level)
	}
	if d := b.next.Sub(now); d > 3*every/2 {
		t.Fatalf("after a new failure the next move is %v away", d)
	}
	for range bridgeGraceMoves + 2 {
		b.moving(now, true)
	}
	if b.level == 0 {
		t.Fatal("no back-off after moves that changed nothing")
	}
	if !b.suspectSplit(2, 2, 8, now) || b.level != 0 {
		t.Fatalf("a move that changed the neighbours left the back-off at level %d", b.level)
	}
	if b.suspectSplit(2, 0, 8, now) || !b.next.IsZero() || b.level != 0 {
		t.Fatal("all failed neighbours back, but a move is still planned")
	}
}

func TestTokenDueForRenewal(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	if tokenDue(now.Add(renewBefore+time.Minute).Unix(), now) {
		t.Fatal("a token with more than renewBefore left is due")
	}
	if !tokenDue(now.Add(renewBefore-time.Minute).Unix(), now) || !tokenDue(now.Add(-time.Hour).Unix(), now) {
		t.Fatal("a token close to (or past) its end is not due")
	}
}

// An islet: a peer with one neighbour whose welcome named two or more
// others is on an overlay of two formed apart, and registers again like a
// peer that remembers a failed neighbour; one with one neighbour of a
// task of two, or with two or more neighbours, is not.
func TestIsletSuspectsSplit(t *testing.T) {
	for _, tc := range []struct {
		neighbours, welcomed int
		want                 bool
	}{
		{1, 2, true}, {1, 7, true}, {1, 1, false}, {1, 0, false}, {2, 7, false}, {0, 7, false},
	} {
		if got := islet(tc.neighbours, tc.welcomed); got != tc.want {
			t.Errorf("islet(%d neighbours, welcome of %d) = %v", tc.neighbours, tc.welcomed, got)
		}
	}
}
