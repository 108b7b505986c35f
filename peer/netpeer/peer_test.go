package netpeer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/peer/node"
)

// In-process peers (each with its own pion stack) over real WebRTC on
// 127.0.0.1; the separate-process tests are in e2e_test.go.

func TestPeersFormCorrectOverlay(t *testing.T) {
	url, tid := startSignal(t, "netpeer-inproc")
	log := &testLog{}
	const n = 6
	// One after the other: joined at once, 6 peers took 16.5 s (twice,
	// in the package's run; 1.4 s run alone), where this test asks
	// connections = neighbours.
	peers := runPeers(t, n, 150*time.Millisecond, log, func(i int) Config { return testPeerConfig(t, url, tid, i+1, log) })
	start := time.Now()
	pollUntil(t, 60*time.Second, 200*time.Millisecond, func() (bool, string) {
		sts := statusesOf(peers)
		diff := WrongNeighbours(sts, DefaultConfig().Overlay.Spaces)
		conns := true
		for _, s := range sts {
			conns = conns && slices.Equal(s.Connections, s.Neighbors)
		}
		return diff == "" && conns, fmt.Sprintf("overlay not correct: %s (connections match neighbours: %v)", diff, conns)
	})
	t.Logf("%d peers correct in %v", n, time.Since(start).Round(time.Millisecond))
	for _, s := range statusesOf(peers) {
		// Honest peers never send forged, unknown or oversized frames. A
		// stale session answer (Replayed) or a frame racing its
		// connection's set-up can be refused on a loaded machine: logged.
		if forged := s.RTC.BadSignature + s.RTC.BadVersion + s.RTC.Oversized + s.RTC.UnknownKind; forged != 0 || s.OverlayRefused != 0 {
			t.Errorf("%s: refused %d forged/unknown/oversized frames, %d overlay messages", s.ID[:8], forged, s.OverlayRefused)
		}
		if n := s.RTC.Refused(); n != 0 {
			t.Logf("%s: refused %d stale or racing frames (replayed %d, malformed %d)", s.ID[:8], n, s.RTC.Replayed, s.RTC.Malformed)
		}
	}
}

func TestRunFailsWithoutServer(t *testing.T) {
	cfg := testPeerConfig(t, "ws://127.0.0.1:1/signal", [32]byte{1}, 1, nil)
	cfg.Signal.HandshakeTimeout = time.Second
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(context.Background()); !errors.Is(err, ErrBootstrap) {
		t.Fatalf("Run: %v, want ErrBootstrap", err)
	}
	if err := p.Run(context.Background()); !errors.Is(err, ErrState) {
		t.Fatalf("second Run: %v, want ErrState", err)
	}
}

func TestConfigValidate(t *testing.T) {
	cfg := testPeerConfig(t, "ws://127.0.0.1:1/signal", [32]byte{1}, 1, nil)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Config){
		"no url":         func(c *Config) { c.SignalURL = "" },
		"no task":        func(c *Config) { c.Task = [32]byte{} },
		"tick":           func(c *Config) { c.Tick = 0 },
		"public status":  func(c *Config) { c.StatusAddr = "0.0.0.0:0" },
		"bad status":     func(c *Config) { c.StatusAddr = "nonsense" },
		"rtc":            func(c *Config) { c.RTC.QueueFrames = 0 },
		"move, no learn": func(c *Config) { c.Move = node.MoveConfig{Max: 1, Every: time.Minute} },
		"move every 0": func(c *Config) {
			c.Learn, c.Move = classLearner([]int{0}, 10, 1, nil, c.Tick), node.MoveConfig{Max: 1}
		},
		"move max < 0": func(c *Config) {
			c.Learn, c.Move = classLearner([]int{0}, 10, 1, nil, c.Tick), node.MoveConfig{Max: -1, Every: time.Minute}
		},
	} {
		c := cfg
		mut(&c)
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
	c := cfg
	c.Learn, c.Move = classLearner([]int{0}, 10, 1, nil, c.Tick), node.DefaultMoveConfig()
	if err := c.Validate(); err != nil {
		t.Errorf("a learner that moves: %v", err)
	}
}
