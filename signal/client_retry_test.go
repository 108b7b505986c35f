package signal_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server"
)

// A server that answers 503 (its handshake slots taken) and then frees
// up: DialRetry says why it waits, backs off with jitter and gets in.
func TestDialRetryWaitsOutABusyServer(t *testing.T) {
	spec := task.DefaultSpec()
	spec.Name = "retry-test"
	tid, err := spec.ID()
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Tasks = []task.Spec{spec}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	var busy atomic.Int32
	busy.Store(2) // the first two upgrades are refused
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= busy.Load() {
			http.Error(w, "too many pending handshakes", http.StatusServiceUnavailable)
			return
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	defer ts.Close()
	url := "ws" + strings.TrimPrefix(ts.URL, "http") + "/signal"
	seed := make([]byte, 32)
	seed[0] = 7
	id, err := signal.IdentityFromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Plain Dial gives up at once, and says the server is busy.
	if _, err := signal.Dial(ctx, url, id, tid, signal.DefaultClientConfig()); !errors.Is(err, signal.ErrBusy) || !signal.Retryable(err) {
		t.Fatalf("dial a busy server: %v", err)
	} else if why := signal.Explain(err); !strings.Contains(why, "busy") {
		t.Fatalf("explained as %q", why)
	}
	rc := signal.RetryConfig{First: 20 * time.Millisecond, Max: 80 * time.Millisecond, Rand: rand.New(rand.NewPCG(1, 2))}
	var waits []time.Duration
	c, err := signal.DialRetry(ctx, url, id, tid, signal.DefaultClientConfig(), rc, func(_ int, err error, wait time.Duration) {
		if !errors.Is(err, signal.ErrBusy) {
			t.Errorf("retried after %v", err)
		}
		waits = append(waits, wait)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// One refusal left for DialRetry (the plain Dial took the first).
	if len(waits) != 1 || waits[0] < 10*time.Millisecond || waits[0] > 20*time.Millisecond {
		t.Fatalf("waits %v", waits)
	}
	// Bounded attempts against a server that stays busy.
	busy.Store(1 << 30)
	_, err = signal.DialRetry(ctx, url, id, tid, signal.DefaultClientConfig(), signal.RetryConfig{First: time.Millisecond, Max: 4 * time.Millisecond, Attempts: 4, Rand: rand.New(rand.NewPCG(1, 2))}, nil)
	if !errors.Is(err, signal.ErrBusy) {
		t.Fatalf("still busy: %v", err)
	}
	// Only Busy failures retried: an unreachable server fails at once.
	start := time.Now()
	_, err = signal.DialRetry(ctx, "ws://127.0.0.1:1/signal", id, tid, signal.DefaultClientConfig(), signal.RetryConfig{First: time.Second, Max: time.Second, Rand: rand.New(rand.NewPCG(1, 2)), Only: signal.Busy}, func(int, error, time.Duration) {
		t.Error("retried an unreachable server")
	})
	if err == nil || signal.Busy(err) || time.Since(start) > 900*time.Millisecond {
		t.Fatalf("unreachable: %v after %v", err, time.Since(start))
	}
}

func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&signal.Refusal{Code: signal.CodeServerFull}, true},
		{&signal.Refusal{Code: signal.CodeTaskFull}, true},
		{&signal.Refusal{Code: signal.CodeAdmissionLimited}, true},
		{&signal.Refusal{Code: signal.CodeUnknownTask}, false},
		{&signal.Refusal{Code: signal.CodeBadSignature}, false},
		{signal.ErrBusy, true},
		{signal.ErrConfig, false},
		{errors.New("connection refused"), true},
		{context.Canceled, false},
	} {
		if got := signal.Retryable(tc.err); got != tc.want {
			t.Errorf("Retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
		if busy := signal.Busy(tc.err); busy && !tc.want {
			t.Errorf("Busy(%v) but not retryable", tc.err)
		}
	}
}

// A peer refused with admission-limited (its address's admissions used
// up: a shared NAT) gave up at once. Now DialRetry waits (Max at once:
// admissions refill in minutes), says why, and gets in once the
// address's bucket has refilled.
func TestDialRetryWaitsOutAdmissionLimit(t *testing.T) {
	spec := task.DefaultSpec()
	spec.Name = "admission-retry-test"
	tid, err := spec.ID()
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Tasks = []task.Spec{spec}
	cfg.Admission.Exempt = nil // the test's 127.0.0.1 is counted
	cfg.Admission.IPBurst = 1
	cfg.Admission.IPPerHour = 1800 // one admission every 2 s
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	url := "ws" + strings.TrimPrefix(ts.URL, "http") + "/signal"
	ident := func(b byte) signal.Identity {
		seed := make([]byte, 32)
		seed[0] = b
		id, err := signal.IdentityFromSeed(seed)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	first, err := signal.Dial(ctx, url, ident(1), tid, signal.DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = signal.Dial(ctx, url, ident(2), tid, signal.DefaultClientConfig())
	var r *signal.Refusal
	if !errors.As(err, &r) || r.Code != signal.CodeAdmissionLimited || !signal.Busy(err) || !signal.Retryable(err) {
		t.Fatalf("second new key from one address: %v, want a retryable admission-limited refusal", err)
	} else if why := signal.Explain(err); !strings.Contains(why, "from your address") {
		t.Fatalf("explained as %q", why)
	}
	rc := signal.RetryConfig{First: 10 * time.Millisecond, Max: 400 * time.Millisecond, Rand: rand.New(rand.NewPCG(3, 4)), Only: signal.Busy}
	var waits []time.Duration
	c, err := signal.DialRetry(ctx, url, ident(2), tid, signal.DefaultClientConfig(), rc, func(_ int, err error, wait time.Duration) {
		if !errors.As(err, &r) || r.Code != signal.CodeAdmissionLimited {
			t.Errorf("retried after %v", err)
		}
		waits = append(waits, wait)
	})
	if err != nil {
		t.Fatalf("after waiting for the admission bucket: %v", err)
	}
	defer c.Close()
	if len(waits) == 0 || waits[0] < rc.Max/2 {
		t.Fatalf("waits %v, want the first at least Max/2 = %v", waits, rc.Max/2)
	}
}
