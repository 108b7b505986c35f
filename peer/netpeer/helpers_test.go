package netpeer

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
	"github.com/peerlearn/peerlearn/types/ident"
)

// testLog collects log lines to print when a test fails.
type testLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *testLog) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < 5000 {
		l.lines = append(l.lines, time.Now().Format("15:04:05.000 ")+fmt.Sprintf(format, args...))
	}
}

func (l *testLog) dump(t *testing.T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		t.Log(s)
	}
}

// startSignal serves a one-task signalling server on 127.0.0.1 until
// cleanup and returns its websocket URL and the task's ID.
func startSignal(t *testing.T, name string, mutate ...func(*task.Spec)) (url string, tid ident.Task) {
	t.Helper()
	spec, tid := servertest.Task(t, name, mutate...)
	cfg := server.DefaultConfig()
	cfg.Tasks = []task.Spec{spec}
	// Every test server admits with the same key and secret, as servers
	// of one task must (a peer that moves keeps its token and place).
	cfg.Admission.Key = ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	cfg.Admission.Secret = [32]byte{1}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := servertest.Serve(t, srv)
	return servertest.SignalURL(addr), tid
}

// testPeerConfig is a loopback-only configuration.
func testPeerConfig(t *testing.T, url string, tid ident.Task, seed int, log *testLog) Config {
	t.Helper()
	b := make([]byte, 32)
	b[0], b[1] = byte(seed), byte(seed>>8)
	id, err := signal.IdentityFromSeed(b)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.SignalURL, cfg.Task, cfg.Identity = url, tid, id
	cfg.RTC.LoopbackOnly = true
	cfg.RTC.Grace = 3 * time.Second
	if log != nil {
		cfg.Logf = log.logf
	}
	return cfg
}

// pollUntil calls cond every poll until it holds and returns how long
// that took, or fails the test with cond's last reason after bound. A
// loopback swarm of real-time peers has no event a test could block on:
// so this polls, the one place these tests wait on the clock (bounds are
// generous: other work may load the machine). The separate-process
// tests are e2e/native's.
func pollUntil(t testing.TB, bound, poll time.Duration, cond func() (ok bool, why string)) time.Duration {
	t.Helper()
	t0 := time.Now()
	for {
		ok, why := cond()
		if ok {
			return time.Since(t0)
		}
		if time.Since(t0) > bound {
			t.Fatalf("after %v: %s", bound, why)
		}
		time.Sleep(poll) // see above: nothing to block on
	}
}

// runPeers makes n in-process peers from cfgOf(i) and runs each on a
// goroutine until the test ends: cleanup cancels them, waits for every
// Run to return, and dumps log if the test failed. With stagger > 0 the
// peers start that far apart.
func runPeers(t *testing.T, n int, stagger time.Duration, log *testLog, cfgOf func(i int) Config) []*Peer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	peers := make([]*Peer, n)
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		if t.Failed() {
			log.dump(t)
		}
	})
	for i := range n {
		p, err := New(cfgOf(i))
		if err != nil {
			t.Fatal(err)
		}
		peers[i] = p
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Run(ctx); err != nil {
				t.Errorf("peer %d: %v", i, err)
			}
		}()
		if stagger > 0 {
			time.Sleep(stagger) // a start of a real-time peer: see the caller's reason
		}
	}
	return peers
}

// classLearner trains a peer on trainN synthetic samples of classes
// (drawn with seed) and evaluates it on test every 300 ms.
func classLearner(classes []int, trainN int, seed uint64, test *data.Dataset, tick time.Duration) *LearnConfig {
	return &LearnConfig{
		Build: func(spec task.Spec, id ident.Peer) (*learn.Peer, *data.Dataset, error) {
			train := synthetic(trainN, classes, seed)
			lc, err := node.LearnerConfig(spec, id, train, tick)
			if err != nil {
				return nil, nil, err
			}
			lp, err := learn.NewPeer(lc, train)
			return lp, test, err
		},
		EvalEvery: 300 * time.Millisecond,
	}
}

// statusesOf reads every peer's Status, in order.
func statusesOf(peers []*Peer) []Status {
	out := make([]Status, len(peers))
	for i, p := range peers {
		out[i] = p.Status()
	}
	return out
}
