package rtc

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
	"github.com/peerlearn/peerlearn/types/ident"
)

// sigServer is a signalling server on a loopback port; stop takes it
// away mid-test (cleanup stops it in any case).
type sigServer struct {
	srv  *server.Server
	url  string
	task ident.Task
	stop func()
}

func startSignal(t *testing.T) *sigServer {
	t.Helper()
	spec, tid := servertest.Task(t, "rtc-test")
	cfg := server.DefaultConfig()
	cfg.Tasks = []task.Spec{spec}
	cfg.BootstrapTimeout = 20 * time.Second
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr, stop := servertest.Serve(t, srv)
	return &sigServer{srv: srv, url: servertest.SignalURL(addr), task: tid, stop: stop}
}

// testPeer is a Manager whose events are collected.
type testPeer struct {
	*Manager
	t      *testing.T
	mu     sync.Mutex
	msgs   []Event
	xfers  []Event
	sent   []Event
	failed []Event
	ups    map[ident.Peer]int
	downs  map[ident.Peer]int
	logs   []string
}

func testConfig(t *testing.T, seed byte) Config {
	cfg := DefaultConfig()
	cfg.Identity = testIdentity(t, seed)
	cfg.LoopbackOnly = true
	cfg.GatherTimeout = 2 * time.Second
	cfg.ConnectTimeout = 8 * time.Second
	return cfg
}

// newTestPeer starts a manager with cfg (after mutate) and, if sig is not
// nil, registers it with the signalling server.
func newTestPeer(t *testing.T, sig *sigServer, seed byte, mutate func(*Config)) *testPeer {
	t.Helper()
	cfg := testConfig(t, seed)
	p := &testPeer{t: t, ups: map[ident.Peer]int{}, downs: map[ident.Peer]int{}}
	cfg.Logf = func(format string, args ...any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.logs) < 2000 {
			p.logs = append(p.logs, time.Now().Format("15:04:05.000 ")+fmt.Sprintf(format, args...))
		}
	}
	if mutate != nil {
		mutate(&cfg)
	}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p.Manager = m
	go p.drain()
	t.Cleanup(func() {
		m.Close()
		if t.Failed() {
			p.mu.Lock()
			for _, l := range p.logs {
				t.Log(l)
			}
			p.mu.Unlock()
		}
	})
	if sig != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := signal.Dial(ctx, sig.url, cfg.Identity, sig.task, signal.DefaultClientConfig())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		m.AttachSignal(c)
	}
	return p
}

func (p *testPeer) drain() {
	for {
		select {
		case <-p.ctx.Done():
			return
		case ev := <-p.Events():
			p.mu.Lock()
			switch ev.Type {
			case EventMessage:
				p.msgs = append(p.msgs, ev)
			case EventTransfer:
				p.xfers = append(p.xfers, ev)
			case EventSent:
				p.sent = append(p.sent, ev)
			case EventSendFailed:
				p.failed = append(p.failed, ev)
			case EventUp:
				p.ups[ev.Peer]++
			case EventDown:
				p.downs[ev.Peer]++
			}
			p.mu.Unlock()
		}
	}
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond) // bounded polling of state another goroutine changes

	}
}

// messages returns the payloads received from peer.
func (p *testPeer) messages(from ident.Peer) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, ev := range p.msgs {
		if ev.Peer == from {
			out = append(out, string(ev.Data))
		}
	}
	return out
}

func (p *testPeer) with(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f()
}

// connected reports whether p has an open connection to id.
func (p *testPeer) connected(id ident.Peer) bool {
	for _, q := range p.Peers() {
		if q == id {
			return true
		}
	}
	return false
}
