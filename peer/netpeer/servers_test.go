package netpeer

import (
	"context"
	"errors"
	"slices"
	"testing"

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
