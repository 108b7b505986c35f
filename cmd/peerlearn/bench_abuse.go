//go:build hostile

package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/pion/webrtc/v4"

	"github.com/peerlearn/peerlearn/internal/proc"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server"
	"github.com/peerlearn/peerlearn/types/ident"
)

func init() {
	register(&command{
		name:    "bench abuse",
		summary: "attacks a live learning peer and a live signalling server on loopback; prints what they cost the victim",
		run:     runBenchAbuse,
	})
}

// runBenchAbuse plays a hostile peer against a live one, on loopback:
// an in-process signalling server hosting the default task, a victim and
// an honest peer as `peerlearn peer` processes (learning, so the victim's
// accuracy can be watched), and a hostile rtc.Manager here, in the
// benchmark. The benchmark and the raw frames it sends
// (rtc.Manager.SendFrame) are built only with -tags hostile
// (scripts/bench-abuse.sh): a plain peerlearn has neither. The attacks,
// each bounded in count and time:
//
//   - manifests: oversized and 1-byte-chunk manifests, then transfers at
//     the victim's limit whose chunks stop one short of the end (each
//     superseding the one before); M is the most transfer memory any one
//     peer made the victim's resource manager hold (its per-peer peak,
//     from /status), in MB;
//   - offers: -offers signed offers from fresh identities, routed to the
//     victim through the hostile peer's connection, each with a valid SDP
//     that will never connect; C is the most connections (open or being
//     set up) the victim held meanwhile;
//   - frames: -frames badly signed frames (the victim bans the sender);
//   - server: from 127.0.0.2, -fakes registrations of fresh identities
//     (until the server refuses one) and then -sockets WebSocket
//     upgrades that never say hello, all held, while an honest newcomer
//     from 127.0.0.1 tries to register (one attempt, 5 s); J is 1 if it
//     got in, else 0, P and S how many registrations and sockets the
//     server let the attacker hold (its per-address limits: loopback is
//     limited per address here, as a public address would be);
//   - contacts: -contact-fakes fakes, each from a /24 of its own, send
//     every contact they are handed a signed offer whose only candidate
//     is dead (127.0.0.1:9) and claim a connection to each (issue #27's
//     attack on contact claims); then -newcomers newcomers register one
//     after another: fake_contacts is how many fakes they were handed in
//     all (of 3 each), and one more joins for real (rtc.Manager, offers
//     to all its contacts): newcomer_join_s is from its dial to its
//     first open connection;
//   - proxy: the server flood again, against a second server behind the
//     nginx proxy DEPLOY.md shows (internal/nginx), trusted for the
//     client address: proxy_joins_ok is 1 if the newcomer got in;
//   - turn: 63 registrations from 3 subnets each ask the embedded TURN
//     relay (a third server) for their 16 allocations, then an honest
//     newcomer for one: turn_drained is 1 if it was refused;
//
// R is the growth of the victim's resident memory (VmRSS, MB) over the
// window from its first evaluation (data loaded, buffers allocated, just
// before the attacks) to the end of the training that follows them: its
// highest reading in the window less the reading at its start. H is the
// honest peer's growth over the same window, unattacked: what training
// alone costs. Both peers run with GODEBUG=gctrace=1 (a trace, not a
// setting: the collector behaves the same), so the collections each ran
// in the window are printed too: a peer whose heap holds the MNIST
// training set (~225 MB live) has a GC goal twice that, and may run none
// in the window, when R and H are the garbage of training (and of
// refusing the attacks) awaiting its first collection, not memory held.
// trained is 1 if the victim's test accuracy after the attacks is above
// the one before. The last line:
//
//	bench-abuse manifest_mb=M offers=N conns_max=C server_joins_ok=J flood_peers_held=P flood_sockets_held=S rss_growth_mb=R rss_growth_honest_mb=H trained=1 proxy_joins_ok=1 turn_drained=0 fake_contacts=F newcomer_join_s=T
func runBenchAbuse(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("bench abuse")
	offers := fs.Int("offers", 64, "offers in the flood")
	frames := fs.Int("frames", 5000, "badly signed frames")
	sockets := fs.Int("sockets", 128, "silent WebSocket upgrades held against the server")
	fakes := fs.Int("fakes", 100, "fake registrations (fresh identities) held against the server before the sockets")
	contactFakes := fs.Int("contact-fakes", 30, "fakes that send dead offers to their contacts and claim connections")
	newcomers := fs.Int("newcomers", 8, "newcomers that count the fakes among the contacts they are handed")
	settle := fs.Bool("settle", true, "at the end, wait (at most ConnectTimeout) for the fakes' answered offers to fail, so that the dead offers are counted")
	trainFor := fs.Duration("train", 60*time.Second, "how long the victim trains after the attacks before its accuracy is compared")
	limit := fs.Duration("limit", 5*time.Minute, "give up after this long")
	dir := fs.String("data", defaultDataDir(), "data directory (MNIST) for the learning peers")
	verbose := fs.Bool("v", false, "log the peers' and the hostile manager's diagnostics to stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *offers < 1 || *frames < 0 || *sockets < 0 || *fakes < 0 || *contactFakes < 0 || *contactFakes > 200 || *newcomers < 1 || *trainFor <= 0 || *limit <= 0 {
		return fmt.Errorf("%w: want -offers >= 1, -frames >= 0, -sockets >= 0, -fakes >= 0, 0 <= -contact-fakes <= 200, -newcomers >= 1, -train > 0, -limit > 0", errUsage)
	}
	ctx, cancel := context.WithTimeout(ctx, *limit)
	defer cancel()
	vlog := func(string, ...any) {}
	if *verbose {
		vlog = logf
	}

	// The server.
	spec := task.DefaultSpec()
	spec.Name = "bench-abuse"
	tid, err := spec.ID()
	if err != nil {
		return err
	}
	scfg := server.DefaultConfig()
	scfg.Tasks = []task.Spec{spec}
	// Per-address limits on loopback too, as for clients on a public
	// address: the attacker floods from 127.0.0.2, the honest peers use
	// 127.0.0.1 (loopback addresses are each their own subnet).
	scfg.AddrLimits.Exempt = nil
	srv, err := server.New(scfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go srv.Serve(ln) //nolint:errcheck // ends with Shutdown
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		srv.Shutdown(sctx) //nolint:errcheck // best effort
	}()
	url := "ws://" + ln.Addr().String() + "/signal"

	// The victim and an honest peer, learning.
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	victim, err := startAbusePeer(ctx, exe, "victim", url, tid, *dir, *verbose, logf)
	if err != nil {
		return err
	}
	defer victim.stop()
	time.Sleep(300 * time.Millisecond) // the victim founds the overlay
	honest, err := startAbusePeer(ctx, exe, "honest", url, tid, *dir, *verbose, logf)
	if err != nil {
		return err
	}
	defer honest.stop()
	st, err := victim.waitFor(ctx, "a first evaluation", func(s netpeer.Status) bool {
		return s.State == "member" && s.Learn != nil && s.Learn.Evals >= 1
	})
	if err != nil {
		return err
	}
	acc0, evals0 := st.Learn.Accuracy, st.Learn.Evals
	rss0, err := rssOf(victim.cmd.Process.Pid)
	if err != nil {
		return err
	}
	// The honest peer is the control: its growth over the same time is
	// what training alone costs (buffers, the runtime's heap growing).
	honest0, err := rssOf(honest.cmd.Process.Pid)
	if err != nil {
		return err
	}
	gcVictim0, gcHonest0 := victim.gc.snapshot(), honest.gc.snapshot()
	fmt.Fprintf(stdout, "victim %s: member, accuracy %.4f after %d evaluations, RSS %.1f MB (honest peer %.1f MB), transfer limit %d bytes\n",
		st.ID[:8], acc0, evals0, rss0, honest0, st.Resources.TransferLimit)
	var rssMax, honestMax float64
	var rssMu sync.Mutex
	sampleCtx, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	go func() {
		for {
			r, err := rssOf(victim.cmd.Process.Pid)
			rh, herr := rssOf(honest.cmd.Process.Pid)
			rssMu.Lock()
			if err == nil {
				rssMax = max(rssMax, r)
			}
			if herr == nil {
				honestMax = max(honestMax, rh)
			}
			rssMu.Unlock()
			select {
			case <-sampleCtx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()

	// The hostile peer: registered with the server, connected to the
	// victim (a contact: the task has two peers).
	vid, err := ident.ParsePeer(st.ID)
	if err != nil {
		return err
	}
	h, err := newHostile(ctx, url, tid, vid, vlog)
	if err != nil {
		return err
	}
	defer h.close()

	// The offers go first (fast), then the manifests and the frames,
	// all within the victim's Grace for a connection that is not an
	// overlay neighbour's; the bad frames end with a ban.
	most, err := h.sendOffers(ctx, victim, *offers)
	if err != nil {
		return fmt.Errorf("offers: %w", err)
	}
	manifestMB, err := h.manifests(ctx, victim, st.Resources.TransferLimit)
	if err != nil {
		return fmt.Errorf("manifests: %w", err)
	}
	fmt.Fprintf(stdout, "manifests: one peer made the victim hold at most %.3f MB of transfers (limit %d bytes per transfer)\n", manifestMB, st.Resources.TransferLimit)
	h.badFrames(*frames)
	connsMax := max(most, watchHeld(ctx, victim, rtc.DefaultConfig().ConnectTimeout+2*time.Second))
	fmt.Fprintf(stdout, "offers: %d sent; the victim held at most %d connections (cap %d)\n", *offers, connsMax, rtc.DefaultConfig().MaxConnections)
	if s, err := victim.status(); err == nil {
		fmt.Fprintf(stdout, "frames: %d sent; the victim refused %d (bad signature %d), banned %d peers, refused %d offers over its budgets, suppressed %d log lines\n",
			*frames, s.RTC.Refused(), s.RTC.BadSignature, s.RTC.Bans, s.RTC.OffersOverQuota, s.RTC.LogsSuppressed)
	}

	// 4. Fake registrations and sockets against the server, from
	// another address than the honest peers'.
	joins, socketsHeld, peersHeld := serverFlood(ctx, url, tid, *sockets, *fakes)
	fmt.Fprintf(stdout, "server flood from 127.0.0.2: %d of %d fake registrations and %d of %d silent upgrades held; an honest newcomer from 127.0.0.1 registered: %d\n",
		peersHeld, *fakes, socketsHeld, *sockets, joins)

	// 5. Fakes that send dead offers and claim connections; newcomers
	// count the fakes they are handed, and one joins for real.
	fakeIDs, fakeConns, err := deadOfferFakes(ctx, url, tid, *contactFakes)
	defer func() {
		for _, c := range fakeConns {
			c.CloseNow() //nolint:errcheck // best effort
		}
	}()
	if err != nil {
		return fmt.Errorf("dead-offer fakes: %w", err)
	}
	peersThen := srv.Stats().Peers[tid] // the fakes, the victim, the honest and the hostile peer
	handed, handedOf, err := fakesHanded(ctx, url, tid, fakeIDs, *newcomers)
	if err != nil {
		return fmt.Errorf("newcomers: %w", err)
	}
	joinTime, joinFakes, err := newcomerJoin(ctx, url, tid, fakeIDs, vlog)
	if err != nil {
		return fmt.Errorf("newcomer: %w", err)
	}
	sst := srv.Stats()
	fmt.Fprintf(stdout, "contact claims: %d fakes sent dead offers and claimed connections; %d of the %d peers registered now established (%d claims confirmed by their contact so far, %d unconfirmed); "+
		"%d newcomers were handed %d fakes among %d contacts (a random pick, without the claims' ranking: %.1f expected); a newcomer with %d fakes among its contacts joined (first open connection) in %.3f s\n",
		len(fakeIDs), sst.Established[tid], sst.Peers[tid], sst.Claims.Confirmed, sst.Claims.Unconfirmed,
		*newcomers, handed, handedOf, float64(handedOf)*float64(len(fakeIDs))/float64(max(peersThen, 1)), joinFakes, joinTime.Seconds())

	// 6. The server flood again, behind the nginx proxy DEPLOY.md shows.
	proxyJoins, proxySockets, proxyPeers, err := proxyFlood(ctx, spec, tid, *sockets, *fakes)
	if err != nil {
		return fmt.Errorf("behind nginx: %w", err)
	}
	fmt.Fprintf(stdout, "behind nginx: the attacker (127.0.0.2, forwarded) held %d of %d fake registrations and %d of %d silent upgrades; an honest newcomer registered: %d\n",
		proxyPeers, *fakes, proxySockets, *sockets, proxyJoins)

	// 7. The TURN relay: 63 registrations from 3 subnets try to drain it.
	drained, turnHeld, turnRefused, err := turnDrain(ctx, spec, tid)
	if err != nil {
		return fmt.Errorf("turn: %w", err)
	}
	fmt.Fprintf(stdout, "turn: 63 hostile registrations from 3 subnets held %d allocations, %d refused (486); an honest newcomer was refused a relay: %d\n",
		turnHeld, turnRefused, drained)

	// Training goes on.
	end, err := victim.waitFor(ctx, "training after the attacks", func(s netpeer.Status) bool {
		return s.Learn != nil && s.Learn.Evals >= evals0+2 && s.Learn.Accuracy > acc0
	}, *trainFor)
	trained := 0
	if err == nil {
		trained = 1
	} else if end.Learn == nil {
		return err
	}
	stopSampling()
	rssMu.Lock()
	growth, control := max(rssMax-rss0, 0), max(honestMax-honest0, 0)
	rssMu.Unlock()
	fmt.Fprintf(stdout, "victim after: accuracy %.4f (was %.4f), %d evaluations, RSS growth %.1f MB (the honest peer's, unattacked, over the same window: %.1f MB)\n",
		end.Learn.Accuracy, acc0, end.Learn.Evals, growth, control)
	fmt.Fprintf(stdout, "collections in the window: victim %s; honest peer %s\n",
		victim.gc.since(gcVictim0), honest.gc.since(gcHonest0))
	// The fakes' answered offers fail (ICE gives up after 7 s) or time
	// out (ConnectTimeout, 15 s): wait for that, so that they are counted.
	for deadline := time.Now().Add(rtc.DefaultConfig().ConnectTimeout + 2*time.Second); *settle && time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(250 * time.Millisecond) {
		if s, err := victim.status(); err == nil && heldBy(victim) <= s.RTC.Open {
			break
		}
	}
	if s, err := victim.status(); err == nil {
		fmt.Fprintf(stdout, "transfers: the victim held at most %.3f MB at once from all peers, %d superseded, %d refused\n",
			float64(s.Resources.PeakBytes)/1e6, s.RTC.TransfersSuperseded, s.RTC.TransfersRefused)
		// By now the fakes' answered offers have failed (ICE) or timed out.
		fmt.Fprintf(stdout, "offers through the server: the victim charged %d dead offers to their senders, refused %d over their sender's budget, gave %d slots to newer offers; it holds %d connections (%d open)\n",
			s.RTC.DeadOffers, s.RTC.ServerOffersRefused, s.RTC.OffersEvicted, heldBy(victim), s.RTC.Open)
	}
	// A value of 0 would read as "not measured" to check-bench-line.sh:
	// memory and growth are printed with a floor of 0.001 (1 kB).
	fmt.Fprintf(stdout, "bench-abuse manifest_mb=%.3f offers=%d conns_max=%d server_joins_ok=%d flood_peers_held=%d flood_sockets_held=%d rss_growth_mb=%.3f rss_growth_honest_mb=%.3f trained=%d proxy_joins_ok=%d turn_drained=%d fake_contacts=%d newcomer_join_s=%.3f\n",
		max(manifestMB, 0.001), *offers, connsMax, joins, peersHeld, socketsHeld, max(growth, 0.001), max(control, 0.001), trained,
		proxyJoins, drained, handed, max(joinTime.Seconds(), 0.001))
	return nil
}

// abusePeer is a `peerlearn peer` process with a status endpoint.
type abusePeer struct {
	cmd     *exec.Cmd
	url     string
	started time.Time
	gc      *gcTrace // its collections, from its GODEBUG=gctrace=1 lines
}

func startAbusePeer(ctx context.Context, exe, name, sigURL string, tid ident.Task, dir string, verbose bool, logf func(string, ...any)) (*abusePeer, error) {
	// The peer binds its status port itself and prints its URL first.
	args := []string{"peer", "-signal", sigURL, "-loopback", "-status", "127.0.0.1:0", "-every", "0", "-task", tid.Hex(),
		"-data", dir, "-eval-every", "2s", "-eval-samples", "1000"}
	if verbose {
		args = append(args, "-v")
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
	gc := &gcTrace{}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if gc.parse(sc.Text()) {
				continue
			}
			if verbose {
				logf("%s: %s", name, sc.Text())
			}
		}
	}()
	first, err := bufio.NewReader(stdout).ReadString('\n')
	url := proc.Field(first, "status")
	if err != nil || url == "" {
		cmd.Process.Kill() //nolint:errcheck // it may have exited
		cmd.Wait()         //nolint:errcheck // killed
		if err == nil {
			err = errors.New("no status= in it")
		}
		return nil, fmt.Errorf("%s: first line %q: %w (run with -v for its log)", name, first, err)
	}
	go io.Copy(io.Discard, stdout) //nolint:errcheck // until it exits
	return &abusePeer{cmd: cmd, url: url, started: time.Now(), gc: gc}, nil
}

func (p *abusePeer) stop() {
	p.cmd.Process.Kill() //nolint:errcheck // it may have exited
	p.cmd.Wait()         //nolint:errcheck // killed
}

func (p *abusePeer) status() (netpeer.Status, error) {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(p.url)
	if err != nil {
		return netpeer.Status{}, err
	}
	defer resp.Body.Close()
	var s netpeer.Status
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

// waitFor polls the status until cond holds (within timeout[0], default
// two minutes, and ctx); it returns the last status either way.
func (p *abusePeer) waitFor(ctx context.Context, what string, cond func(netpeer.Status) bool, timeout ...time.Duration) (netpeer.Status, error) {
	d := 2 * time.Minute
	if len(timeout) > 0 {
		d = timeout[0]
	}
	deadline := time.Now().Add(d)
	var last netpeer.Status
	for {
		s, err := p.status()
		if err == nil {
			last = s
			if cond(s) {
				return s, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return last, fmt.Errorf("no %s within %v (state %q)", what, d, last.State)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// rssOf reads a process's resident memory in MB (Linux /proc).
func rssOf(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("resident memory: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb / 1024, err
		}
	}
	return 0, errors.New("no VmRSS in /proc status")
}

// hostile is the attacker: an rtc.Manager connected to the victim.
type hostile struct {
	m      *rtc.Manager
	client *signal.Client
	id     signal.Identity
	victim ident.Peer
	task   ident.Task
	done   chan struct{}
}

func newHostile(ctx context.Context, url string, tid ident.Task, victim ident.Peer, logf func(string, ...any)) (*hostile, error) {
	id, err := signal.NewIdentity(nil)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	c, err := signal.Dial(cctx, url, id, tid, signal.DefaultClientConfig())
	cancel()
	if err != nil {
		return nil, err
	}
	cfg := rtc.DefaultConfig()
	cfg.Identity, cfg.Task, cfg.ICEServers, cfg.LoopbackOnly = id, tid, c.Welcome().ICEServers, true
	cfg.Grace = time.Hour
	cfg.Logf = func(format string, args ...any) { logf("hostile: "+format, args...) }
	m, err := rtc.NewManager(cfg)
	if err != nil {
		c.Close()
		return nil, err
	}
	m.AttachSignal(c)
	h := &hostile{m: m, client: c, id: id, victim: victim, task: tid, done: make(chan struct{})}
	go func() { // drain
		for {
			select {
			case <-h.done:
				return
			case <-m.Events():
			}
		}
	}()
	m.SetNeighbors([]ident.Peer{victim})
	if err := m.SendApp(victim, []byte{0}); err != nil {
		h.close()
		return nil, err
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		for _, p := range m.Peers() {
			if p == victim {
				return h, nil
			}
		}
		if time.Now().After(deadline) {
			h.close()
			return nil, errors.New("the hostile peer could not connect to the victim")
		}
	}
}

func (h *hostile) close() {
	h.m.Close()
	close(h.done)
	h.client.Close()
}

func (h *hostile) manifest(man rtc.Manifest) error {
	man.Task = h.task // the victim's task: a manifest for another is refused first
	b, err := rtc.MarshalManifest(man)
	if err != nil {
		return err
	}
	return h.m.SendControl(h.victim, rtc.KindManifest, b)
}

// manifests sends oversized and 1-byte-chunk manifests, then transfers at
// the limit held one chunk short of done; it returns the victim's peak
// transfer memory (MB).
func (h *hostile) manifests(ctx context.Context, victim *abusePeer, limit int64) (float64, error) {
	cs := rtc.DefaultConfig().ChunkSize
	tid := uint64(time.Now().UnixNano())
	for i := range 8 {
		tid++
		size := uint64(64 << 20)
		if i%2 == 1 {
			size = uint64(limit)
		}
		if err := h.manifest(rtc.Manifest{Transfer: tid, Size: size, ChunkSize: 1}); err != nil {
			return 0, err
		}
	}
	for range 4 { // each supersedes the one before (MaxIncoming = 1)
		tid++
		if err := h.manifest(rtc.Manifest{Transfer: tid, Size: uint64(limit), ChunkSize: uint32(cs)}); err != nil {
			return 0, err
		}
		chunk := make([]byte, cs)
		for off := 0; off+cs < int(limit); off += cs {
			f, err := rtc.AppendChunk(nil, tid, uint64(off), chunk)
			if err != nil {
				return 0, err
			}
			if err := h.m.SendFrame(h.victim, f); err != nil {
				return 0, err
			}
		}
	}
	time.Sleep(2 * time.Second) // the victim takes them in
	s, err := victim.status()
	if err != nil {
		return 0, err
	}
	return float64(s.Resources.PeakPeerBytes) / 1e6, nil
}

// heldBy is the victim's connections open or being set up.
func heldBy(victim *abusePeer) int {
	s, err := victim.status()
	if err != nil {
		return 0
	}
	r := s.RTC
	return int(r.ConnectsStarted - r.ConnectsFailed - r.ConnectsClosed)
}

// watchHeld polls heldBy for d and returns the most seen.
func watchHeld(ctx context.Context, victim *abusePeer, d time.Duration) int {
	most := 0
	for deadline := time.Now().Add(d); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(250 * time.Millisecond) {
		most = max(most, heldBy(victim))
	}
	return most
}

// sendOffers routes n signed offers from fresh identities to the victim
// through the hostile peer's connection, each with a valid SDP that will
// never connect; it returns the most connections the victim held
// meanwhile.
func (h *hostile) sendOffers(ctx context.Context, victim *abusePeer, n int) (int, error) {
	sdp, err := deadSDP()
	if err != nil {
		return 0, err
	}
	most := heldBy(victim)
	for range n {
		if ctx.Err() != nil {
			return most, ctx.Err()
		}
		f, err := signal.NewIdentity(nil)
		if err != nil {
			return 0, err
		}
		var sid [8]byte
		rand.Read(sid[:]) //nolint:errcheck // never fails
		body, err := rtc.EncodeSession(rtc.Session{Kind: rtc.SessionOffer, To: h.victim, ID: binary.BigEndian.Uint64(sid[:]) | 1, UnixMilli: time.Now().UnixMilli(), SDP: sdp}, f)
		if err != nil {
			return 0, err
		}
		env, err := rtc.MarshalEnvelope(rtc.Envelope{Origin: f.ID(), Target: h.victim, Path: []ident.Peer{f.ID(), h.id.ID()}, Body: body})
		if err != nil {
			return 0, err
		}
		if err := h.m.SendControl(h.victim, rtc.KindSignal, env); err != nil {
			return 0, err
		}
	}
	return max(most, heldBy(victim)), nil
}

// deadSDP is a valid offer whose ICE never connects (no candidates).
func deadSDP() (string, error) {
	pc, err := webrtc.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return "", err
	}
	defer pc.Close()
	if _, err := pc.CreateDataChannel("peerlearn", nil); err != nil {
		return "", err
	}
	o, err := pc.CreateOffer(nil)
	if err != nil {
		return "", err
	}
	return o.SDP, nil
}

// badFrames sends n frames signed by someone else.
func (h *hostile) badFrames(n int) {
	other, err := signal.NewIdentity(nil)
	if err != nil {
		return
	}
	for i := range n {
		f, err := rtc.AppendControl(nil, other, h.victim, rtc.KindOverlay, uint64(i+1), []byte("forged"))
		if err != nil || h.m.SendFrame(h.victim, f) != nil {
			return // the victim banned us: the connection is gone
		}
	}
}

// serverFlood is the attacker against the server, from one address
// (127.0.0.2; the honest peers use 127.0.0.1): fakes registrations of
// fresh identities, held, until the server refuses one (on a server
// without per-address limits they fill the task: 100 by default), then
// sockets WebSocket upgrades that never say hello, held (without limits
// they take all 64 handshake slots). While it holds both, an honest
// newcomer from 127.0.0.1 tries to register (one attempt, 5 s): joined
// is 1 if it did. It also returns how many sockets and registrations the
// server let the attacker hold.
func serverFlood(ctx context.Context, url string, tid ident.Task, sockets, fakes int) (joined, socketsHeld, peersHeld int) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 2 * time.Second}
	opts := &websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}}
	var conns []*websocket.Conn
	defer func() {
		for _, c := range conns {
			c.CloseNow() //nolint:errcheck // best effort
		}
	}()
	for range fakes {
		c, ok := fakeRegistration(ctx, url, tid, opts)
		if c != nil {
			conns = append(conns, c)
		}
		if !ok {
			break // refused: the server holds no more of this address's peers
		}
		peersHeld++
	}
	for range sockets {
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		c, _, err := websocket.Dial(dctx, url, opts)
		cancel()
		if err != nil {
			break // the server refuses more (503, 429): no slot for this address
		}
		conns = append(conns, c)
		socketsHeld++
	}
	id, err := signal.NewIdentity(nil)
	if err != nil {
		return 0, socketsHeld, peersHeld
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := signal.Dial(dctx, url, id, tid, signal.DefaultClientConfig())
	if err != nil {
		return 0, socketsHeld, peersHeld
	}
	c.Close()
	return 1, socketsHeld, peersHeld
}

// fakeRegistration registers a fresh identity over a raw websocket and
// keeps the connection (silent: the benchmark is over long before the
// server's idle timeout); ok is false if the server refused it.
func fakeRegistration(ctx context.Context, url string, tid ident.Task, opts *websocket.DialOptions) (*websocket.Conn, bool) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		return nil, false
	}
	read := func() *signal.Message {
		_, b, err := c.Read(ctx)
		if err != nil {
			return nil
		}
		m, err := signal.Decode(b)
		if err != nil {
			return nil
		}
		return m
	}
	ch := read()
	id, err := signal.NewIdentity(nil)
	if ch == nil || ch.Type != signal.MsgChallenge || err != nil {
		return c, false
	}
	b, err := signal.Encode(&signal.Message{Type: signal.MsgHello, Hello: signal.SignHello(id, ch.Challenge.Nonce, tid)})
	if err != nil || c.Write(ctx, websocket.MessageText, b) != nil {
		return c, false
	}
	m := read()
	return c, m != nil && m.Type == signal.MsgWelcome
}

// gcTrace follows a Go process's collections through its
// GODEBUG=gctrace=1 lines on stderr ("gc 6 @0.141s 1%: ... 288->288->225
// MB, 288 MB goal, ..."): how many ran and the heap the last left live
// (under GOGC=100 the next starts when the heap is about twice that). It
// is how the benchmark tells memory held from garbage not yet collected.
type gcTrace struct {
	mu  sync.Mutex
	now gcState
}

type gcState struct {
	cycles int // collections so far
	live   int // heap live after the last one, MB
}

// gcLine matches a gctrace line: its cycle and the heap live after it.
var gcLine = regexp.MustCompile(`^gc (\d+) @\S+ \S+: .* \d+->\d+->(\d+) MB, \d+ MB goal`)

// parse takes a line of stderr and reports whether it was a gctrace line.
func (g *gcTrace) parse(line string) bool {
	f := gcLine.FindStringSubmatch(line)
	if f == nil {
		return false
	}
	var s gcState
	s.cycles, _ = strconv.Atoi(f[1]) //nolint:errcheck // \d+
	s.live, _ = strconv.Atoi(f[2])   //nolint:errcheck // \d+
	g.mu.Lock()
	g.now = s
	g.mu.Unlock()
	return true
}

func (g *gcTrace) snapshot() gcState {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.now
}

// since says what the collector did after s.
func (g *gcTrace) since(s gcState) string {
	now := g.snapshot()
	if now.cycles == s.cycles {
		return fmt.Sprintf("none (%d so far, the last left %d MB live)", now.cycles, now.live)
	}
	return fmt.Sprintf("%d, live heap %d -> %d MB", now.cycles-s.cycles, s.live, now.live)
}
