package signal

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// ErrBusy: the server answered the WebSocket upgrade with 503 or 429 (its
// handshake slots or its rate limits are taken). Worth retrying later.
var ErrBusy = errors.New("signal: server busy")

// RetryConfig says how DialRetry backs off between attempts.
type RetryConfig struct {
	// First is the wait after the first failed attempt; it doubles per
	// failure up to Max. Each wait is drawn uniformly from [w/2, w]
	// (jitter: peers refused together do not come back together).
	First, Max time.Duration
	// Attempts bounds the attempts (0: until ctx ends).
	Attempts int
	// Rand draws the jitter (required).
	Rand *rand.Rand
	// Only, if not nil, narrows the failures retried (Retryable's):
	// e.g. Busy, to retry a busy or full server but give up at once on
	// one that cannot be reached at all.
	Only func(error) bool
}

// DefaultRetryConfig: 1 s doubling to 30 s, until ctx ends, jittered by
// r.
func DefaultRetryConfig(r *rand.Rand) RetryConfig {
	return RetryConfig{First: time.Second, Max: 30 * time.Second, Rand: r}
}

// Retryable reports whether a Dial error may go away by itself: a busy
// or full server, a rate limit (admissions from the client's address
// included: they refill), a connection that failed or timed out.
// A refusal that will not change (unknown task, bad signature, another
// protocol version) and a bad configuration are not.
func Retryable(err error) bool {
	var r *Refusal
	switch {
	case err == nil, errors.Is(err, ErrConfig), errors.Is(err, context.Canceled):
		return false
	case errors.As(err, &r):
		switch r.Code {
		case CodeTaskFull, CodeServerFull, CodeBusy, CodeRateLimited, CodeAdmissionLimited, CodeHandshakeTimeout, CodeIdleTimeout, CodeShutdown:
			return true
		}
		return false
	case errors.Is(err, ErrProtocol), errors.Is(err, ErrBadSignature), errors.Is(err, ErrVersion):
		return false
	}
	return true // busy (503), refused or reset connections, timeouts
}

// Busy reports whether a Dial error says the server is there but busy
// or full now (HTTP 503/429, or a full/busy/rate-limited/restarting
// refusal, or admissions from the client's address used up for now): a
// peer should wait and try again. A peer behind a shared address (a
// campus, a carrier-grade NAT) meets admission-limited through no fault
// of its own; it used to give up at once.
func Busy(err error) bool {
	var r *Refusal
	if errors.As(err, &r) {
		switch r.Code {
		case CodeTaskFull, CodeServerFull, CodeBusy, CodeRateLimited, CodeAdmissionLimited, CodeShutdown:
			return true
		}
		return false
	}
	return errors.Is(err, ErrBusy)
}

// Explain says in a volunteer's words why the server could not be
// joined (for the page and the log).
func Explain(err error) string {
	var r *Refusal
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrBusy):
		return "the coordination server is busy (all its connection slots are taken)"
	case errors.As(err, &r):
		switch r.Code {
		case CodeServerFull:
			return "the coordination server is full"
		case CodeTaskFull:
			return "this training task has as many volunteers as it can take"
		case CodeBusy, CodeRateLimited:
			return "the coordination server is busy"
		case CodeShutdown:
			return "the coordination server is restarting"
		case CodeAdmissionLimited:
			return "the coordination server has admitted as many new peers from your address as it takes for now (a shared address, such as a campus or mobile network, fills up sooner)"
		case CodeUnknownTask:
			return "the coordination server does not host this task"
		case CodeVersion:
			return "this peer's version does not match the server's"
		}
		return "the coordination server refused this peer (" + r.Code.String() + ")"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, ErrClosed):
		return "the coordination server did not answer in time"
	}
	return "the coordination server cannot be reached (it may be busy or down)"
}

// DialRetry is Dial, tried again after a retryable failure (Retryable)
// with exponential back-off and jitter until it succeeds, the attempts
// run out or ctx ends. An admission-limited refusal waits Max at once:
// admissions refill in minutes (20 an hour per address by default), so
// short waits would only be refused again. notify, if not nil, is told
// of every failure that will be retried, with the wait before the next
// attempt.
func DialRetry(ctx context.Context, url string, id Identity, t ident.Task, cfg ClientConfig, rc RetryConfig, notify func(attempt int, err error, wait time.Duration)) (*Client, error) {
	if rc.First <= 0 || rc.Max < rc.First || rc.Rand == nil || rc.Attempts < 0 {
		return nil, fmt.Errorf("%w: retry config %+v", ErrConfig, rc)
	}
	wait := rc.First
	for attempt := 1; ; attempt++ {
		c, err := Dial(ctx, url, id, t, cfg)
		retry := Retryable(err) && (rc.Only == nil || rc.Only(err))
		if err == nil || !retry || ctx.Err() != nil || (rc.Attempts > 0 && attempt >= rc.Attempts) {
			return c, err
		}
		var r *Refusal
		if errors.As(err, &r) && r.Code == CodeAdmissionLimited {
			wait = rc.Max
		}
		d := wait/2 + time.Duration(rc.Rand.Int64N(int64(wait/2)+1))
		if notify != nil {
			notify(attempt, err, d)
		}
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("%w (gave up waiting: %w)", err, ctx.Err())
		case <-timer.C:
		}
		wait = min(2*wait, rc.Max)
	}
}
