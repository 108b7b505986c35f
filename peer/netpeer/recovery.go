package netpeer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/signal"
)

// Recovery without a person: a peer refused by a busy or full
// signalling server (HTTP 503 while its handshake slots are taken, a full
// task) waits and tries again, with back-off and jitter, and says why in
// its status (the page shows it); a server that cannot be reached at all
// is still an error at once for a native peer (a wrong address does not
// fix itself); a browser cannot tell the two apart and retries both.

// dialServer registers with a signalling server, trying the configured
// ones in a shuffled order (servers.go) and retrying each while it is
// busy or full; it returns the client and its server's URL.
func (p *Peer) dialServer(ctx context.Context) (*signal.Client, string, error) {
	rng := p.rng()
	rc := signal.DefaultRetryConfig(rng)
	if runtime.GOOS != "js" {
		rc.Only = signal.Busy
	} // else every transient failure: a browser's WebSocket does not show the upgrade's status, so a busy server looks like one that is down
	urls := node.Shuffled(p.cfg.servers(), rng)
	if len(urls) > 1 && runtime.GOOS == "js" {
		rc.Attempts = 3 // a server that is down must not hold up the others: three tries each, one pass
	}
	dial := func(ctx context.Context, url string) (*signal.Client, error) {
		return signal.DialRetry(ctx, url, p.cfg.Identity, p.cfg.Task, p.signalConfig(), rc, func(attempt int, err error, wait time.Duration) {
			why := waitingText(err, wait)
			p.logf("%s (%s, attempt %d: %v)", why, url, attempt, err)
			p.smu.Lock()
			p.status.Waiting = why
			p.smu.Unlock()
		})
	}
	c, url, err := dialEach(ctx, urls, dial, p.logf)
	p.smu.Lock()
	p.status.Waiting = ""
	if err != nil {
		p.status.Waiting = capitalise(signal.Explain(err))
	}
	p.smu.Unlock()
	return c, url, err
}

// rng returns a generator seeded from the peer's ID and the time.
func (p *Peer) rng() *rand.Rand {
	return rand.New(rand.NewPCG(p.id.Seed(), uint64(time.Now().UnixNano())))
}

// waitingText says why the peer waits, for a volunteer.
func waitingText(err error, wait time.Duration) string {
	return fmt.Sprintf("%s; trying again in %d s", capitalise(signal.Explain(err)), int(wait.Round(time.Second)/time.Second))
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// transferLimit is the largest model transfer the task implies: its
// parameters, and under a DecHW aggregator the Hessian diagonal as well,
// 4 bytes each. A manifest over it is refused; the transport's memory
// budgets are multiples of it.
func transferLimit(lp *learn.Peer) int64 {
	n := 4 * int64(lp.NumParams())
	if lp.Rule().Hessian() {
		n *= 2
	}
	return n
}

// limitTransfers sets the transport's transfer limit to the task's model
// size (never above what the transport was configured with).
func (p *Peer) limitTransfers(mgr *rtc.Manager, lp *learn.Peer) {
	n := min(transferLimit(lp), p.cfg.RTC.MaxTransferBytes)
	if err := mgr.SetTransferLimit(n); err != nil {
		p.logf("transfer limit: %v", err)
		return
	}
	p.logf("incoming model transfers limited to %d bytes (the task's model)", n)
}
