package rtc

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// refusalLog rate-limits the log lines about refused frames: a hostile
// peer sending thousands of bad frames must not write thousands of lines.
// The first refusal of each (peer, reason) in a period is logged in full;
// the rest are only counted and summarised when the period ends
// ("refused 4,812 frames from 1a2b3c4d in the last 10s: bad signature").
// Its map is bounded: past maxRefusalKeys pairs in one period, refusals
// are summed under the zero peer ("other peers").
//
// Safe for concurrent use; the clock comes in with every call.
type refusalLog struct {
	mu     sync.Mutex
	period time.Duration
	start  time.Time
	counts map[refusalKey]uint64 // refusals after the first, this period
}

type refusalKey struct {
	peer   ident.Peer
	reason string
}

const (
	refusalPeriod  = 10 * time.Second
	maxRefusalKeys = 256
)

func newRefusalLog(period time.Duration) *refusalLog {
	return &refusalLog{period: period, counts: map[refusalKey]uint64{}}
}

// note records one refusal and reports whether it is to be logged in
// full (the first of its kind this period).
func (r *refusalLog) note(peer ident.Peer, reason string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.start.IsZero() {
		r.start = now
	}
	k := refusalKey{peer, reason}
	n, seen := r.counts[k]
	if !seen {
		if len(r.counts) >= maxRefusalKeys {
			k.peer = ident.Peer{}
			r.counts[k]++
			return false
		}
		r.counts[k] = 0
		return true
	}
	r.counts[k] = n + 1
	return false
}

// flush returns the summaries of the period if it has ended at now (one
// line per pair refused more than once), and starts the next one.
func (r *refusalLog) flush(now time.Time) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.start.IsZero() || now.Sub(r.start) < r.period {
		return nil
	}
	var out []string
	for k, n := range r.counts {
		if n == 0 {
			continue
		}
		from := k.peer.String()
		if k.peer == (ident.Peer{}) {
			from = "other peers"
		}
		out = append(out, fmt.Sprintf("refused %s more frames from %s in the last %v: %s", thousands(n), from, now.Sub(r.start).Round(time.Second), k.reason))
	}
	sort.Strings(out)
	clear(r.counts)
	r.start = time.Time{}
	return out
}

// thousands formats n with commas: 4812 -> "4,812".
func thousands(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// refusalReason names a refused frame's error class for the log.
func refusalReason(err error) string {
	switch {
	case errors.Is(err, ErrBadSignature):
		return "bad signature"
	case errors.Is(err, ErrReplay):
		return "replayed"
	case errors.Is(err, ErrVersion):
		return "unknown version"
	case errors.Is(err, ErrTooLarge):
		return "too large"
	case errors.Is(err, ErrUnknownKind):
		return "unknown kind"
	case errors.Is(err, ErrResource):
		return "over the memory budget"
	case errors.Is(err, ErrBanned):
		return "banned"
	case errors.Is(err, ErrRateLimited):
		return "over the frame rate"
	}
	return "malformed"
}
