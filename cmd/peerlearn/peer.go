package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/netpeer"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/task"
)

func init() {
	register(&command{
		name:    "peer",
		summary: "run one real peer: bootstrap via the signalling server, join the overlay over WebRTC, leave on SIGINT/SIGTERM",
		run:     runPeer,
	})
}

// runPeer runs one peer until interrupted. stdout gets one line at the
// start, a progress line every -every, and one at the end:
//
//	peer id=<64 hex> task=<64 hex> status=http://127.0.0.1:PORT/status
//	peer t=3.0s state=member neighbors=10 connections=10 refused=0
//	peer left id=<64 hex>
func runPeer(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("peer")
	sigURL := fs.String("signal", "ws://127.0.0.1:8080/signal", "signalling server websocket URL")
	taskArg := fs.String("task", "", "task: its 64-hex-digit ID, or a task spec JSON file (default: the server's default task mnist-fedlay)")
	keyFile := fs.String("key", "", "file holding the peer's ed25519 seed in hex (created if missing; default: a fresh key)")
	statusAddr := fs.String("status", "", "serve GET /status (JSON) on this loopback host:port (port 0: any)")
	loopback := fs.Bool("loopback", false, "WebRTC over 127.0.0.1 only (single-machine runs and tests)")
	tick := fs.Duration("tick", 100*time.Millisecond, "overlay tick")
	spaces := fs.Int("spaces", 5, "overlay ring spaces L (at most 2L neighbours); every peer of a task must use the same")
	every := fs.Duration("every", 2*time.Second, "progress line period (0: none)")
	verbose := fs.Bool("v", false, "log connections, neighbour changes and refusals to stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	tid, err := parseTaskArg(*taskArg)
	if err != nil {
		return fmt.Errorf("%w: -task: %v", errUsage, err)
	}
	id, err := loadIdentity(*keyFile)
	if err != nil {
		return fmt.Errorf("-key: %w", err)
	}
	cfg := netpeer.DefaultConfig()
	cfg.SignalURL, cfg.Task, cfg.Identity = *sigURL, tid, id
	cfg.Tick, cfg.StatusAddr = *tick, *statusAddr
	cfg.RTC.LoopbackOnly = *loopback
	cfg.Overlay.Spaces, cfg.RTC.Spaces = *spaces, *spaces
	if *verbose {
		cfg.Logf = logf
	}
	p, err := netpeer.New(cfg)
	if err != nil {
		if errors.Is(err, netpeer.ErrConfig) {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		return err
	}
	fmt.Fprintf(stdout, "peer id=%s task=%s status=%s\n", id.ID().Hex(), tid.Hex(), p.StatusURL())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var tc <-chan time.Time
	if *every > 0 {
		t := time.NewTicker(*every)
		defer t.Stop()
		tc = t.C
	}
	for {
		select {
		case err := <-done:
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "peer left id=%s\n", id.ID().Hex())
			return nil
		case <-tc:
			s := p.Status()
			fmt.Fprintf(stdout, "peer t=%.1fs state=%s neighbors=%d connections=%d refused=%d\n",
				s.UptimeS, s.State, len(s.Neighbors), len(s.Connections), s.RTC.Refused()+s.OverlayRefused)
		}
	}
}

// parseTaskArg reads -task: a hex ID, a spec file, or empty for the
// signalling server's default task.
func parseTaskArg(arg string) (task.ID, error) {
	if arg == "" {
		s := task.DefaultSpec()
		s.Name = "mnist-fedlay" // cmd/signalserver's default
		return s.ID()
	}
	if len(arg) == 64 && !strings.ContainsAny(arg, "./") {
		return task.ParseID(arg)
	}
	b, err := os.ReadFile(arg)
	if err != nil {
		return task.ID{}, err
	}
	s, err := task.Parse(b)
	if err != nil {
		return task.ID{}, err
	}
	return s.ID()
}

// loadIdentity reads the seed in file, creating the file with a fresh one
// if it does not exist; with no file, a fresh identity.
func loadIdentity(file string) (signal.Identity, error) {
	if file == "" {
		return signal.NewIdentity(nil)
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		id, err := signal.NewIdentity(nil)
		if err != nil {
			return signal.Identity{}, err
		}
		return id, os.WriteFile(file, []byte(hex.EncodeToString(id.Seed())+"\n"), 0o600)
	}
	if err != nil {
		return signal.Identity{}, err
	}
	seed, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		return signal.Identity{}, fmt.Errorf("%s: %w", file, err)
	}
	return signal.IdentityFromSeed(seed)
}
