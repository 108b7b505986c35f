package netlab

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/peer/lightfiles"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// SignalAddr is where the lab's signalling server listens.
const SignalAddr = ServerIP + ":8080"

// TURNAddr is the embedded TURN server's address (it answers STUN too).
const TURNAddr = ServerIP + ":3478"

// MatrixConfig is one connectivity-matrix run: native peers in the
// homes, every pair of them an overlay neighbour pair, training a task
// until every peer reaches its target.
type MatrixConfig struct {
	PeerBin, SignalBin string // bin/peerlearn and bin/signalserver
	Data               string // the datasets (PEERLEARN_DATA)
	Dir                string // logs, keys and the task file go here
	// Peers are the homes of the native peers, one entry per peer
	// ("a", "a", "b", ...); Tabs those of headless Chromium tabs that join
	// through the page (Chromium, WebDir and WasmDir needed then).
	Peers, Tabs     []string
	Chromium        string
	WebDir, WasmDir string
	// Shape, if not nil, is applied to every home's link (Lab.Shape; the
	// lab must be Shaped).
	Shape *Shape
	// Target is the task's target accuracy; Timeout bounds the run.
	Target  float64
	Timeout time.Duration
	Seed    uint64 // draws the peers' keys
	Coturn  bool   // TURN by coturn instead of the embedded server
	// RelayRuns > 0 measures the TURN relay's throughput afterwards:
	// RelayRuns transfers of RelayBytes (MatrixResult.RelayMBs).
	RelayRuns, RelayBytes int
	// TURNUncapped: ServerConfig.TURNUncapped.
	TURNUncapped bool
	Logf         func(format string, args ...any)
}

// Pair is one pair of peers as the matrix saw it.
type Pair struct {
	A, B      string // peer names (home letter and index)
	Local     string // A's side of the selected pair: host, srflx, prflx, relay
	Remote    string
	Path      string // "direct", "relay", or "" (never connected)
	Want      string // the path the NAT kinds allow (ExpectedPath): "direct" or "relay"
	ConnectMS int64  // from the offer to the open data channel (offerer's view)
	// RemoteHosts is how many of B's host candidates A knew by address
	// (rtc.Link.RemoteHosts: a tab's mDNS names that A resolved), the
	// most any poll of the run saw: a link that reconnected just before
	// the run ended has not resolved its new candidates yet.
	RemoteHosts int
	// Since is when the matrix first saw the pair connected, from the
	// run's start (zero: never): what a slow run spent its time on.
	Since time.Duration
}

// MatrixResult is what a run measured.
type MatrixResult struct {
	Pairs     []Pair
	Failed    int       // pairs never connected
	AccMean   float64   // mean test accuracy at the end
	Acc       []float64 // per peer
	OverlayOK bool      // every peer's neighbour set is the expected one
	// OverlayDiff says, for each peer whose set is not, what it has.
	OverlayDiff []string
	Elapsed     time.Duration
	Reached     bool // every peer reached Target
	// RelayMBs is the median MB/s of a model transfer through TURN
	// (MatrixConfig.RelayRuns).
	RelayMBs float64
}

type labPeer struct {
	name  string
	home  *Home
	id    ident.Peer // zero for a tab until it reports
	known bool       // id is set
	proc  *Proc      // a native peer's, or
	tab   *Tab       // a browser tab
	st    netpeer.Status
	ok    bool // st is fresh
}

// poll refreshes p.st.
func (p *labPeer) poll() {
	if p.tab != nil {
		p.st, p.ok = p.tab.Status()
		if p.ok && !p.known {
			if id, err := ident.ParsePeer(p.st.ID); err == nil {
				p.id, p.known = id, true
			}
		}
		return
	}
	p.st, p.ok = fetchStatus(p.home.Host, p.proc.Field("status"))
}

func (p *labPeer) stop() {
	if p.tab != nil {
		p.tab.Close()
	} else {
		p.proc.Stop()
	}
}

// RunMatrix starts the server and the peers in l, waits until every
// pair is connected and every peer has reached the target (or Timeout),
// and stops them.
func RunMatrix(ctx context.Context, l *Lab, cfg MatrixConfig) (*MatrixResult, error) {
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if cfg.Shape != nil {
		if err := l.Shape(*cfg.Shape); err != nil {
			return nil, err
		}
	}
	n := len(cfg.Peers) + len(cfg.Tabs)
	spec, tid, taskFile, err := writeTask(cfg.Dir, n, cfg.Target)
	if err != nil {
		return nil, err
	}
	seeds, ids, err := allNeighbours(len(cfg.Peers), spec.Spaces, cfg.Seed)
	if err != nil {
		return nil, err
	}
	scfg := ServerConfig{SignalBin: cfg.SignalBin, Dir: cfg.Dir, TaskFile: taskFile, Coturn: cfg.Coturn, TURNUncapped: cfg.TURNUncapped}
	if len(cfg.Tabs) > 0 {
		scfg.Web = []string{"-web", cfg.WebDir, "-wasm", cfg.WasmDir}
		// The tabs download their light shards, as from a deployment
		// built by `make wasm`, not the whole dataset to cut.
		if _, err := lightfiles.WriteTask(os.DirFS(cfg.Data), filepath.Join(cfg.WasmDir, "data"), spec, false); err != nil {
			return nil, fmt.Errorf("light shards for the tabs: %w", err)
		}
	}
	servers, err := StartServers(ctx, l, scfg)
	if err != nil {
		return nil, err
	}
	defer servers.Stop()
	var peers []*labPeer
	defer func() {
		for _, p := range peers {
			p.stop()
		}
	}()
	t0 := time.Now()
	natives, err := startNatives(l, cfg, taskFile, seeds, ids, n)
	peers = natives
	if err != nil {
		return nil, err
	}
	for i, home := range cfg.Tabs {
		h := l.Home(home)
		if h == nil {
			return nil, fmt.Errorf("no home %q", home)
		}
		name := fmt.Sprintf("tab%s%d", home, i)
		url := fmt.Sprintf("http://%s/?task=%s&shard=%d/%d&autojoin=1", SignalAddr, tid.Hex(), len(cfg.Peers)+i, n)
		tab, err := OpenTab(h.Host, cfg.Chromium, cfg.Dir, name, url, 1280, 1000)
		if err != nil {
			return nil, err
		}
		peers = append(peers, &labPeer{name: name, home: h, tab: tab})
	}
	logf("netlab: %d peers started, task %s", n, tid.Hex()[:12])
	res := &MatrixResult{}
	deadline := time.Now().Add(cfg.Timeout)
	hosts := map[[2]string]int{}           // the most RemoteHosts seen per pair
	since := map[[2]string]time.Duration{} // when each pair was first seen connected
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
		for _, p := range peers {
			p.poll()
		}
		*res = summarise(peers, spec.Spaces, cfg.Target)
		res.Elapsed = time.Since(t0)
		for i, pr := range res.Pairs {
			k := [2]string{pr.A, pr.B}
			hosts[k] = max(hosts[k], pr.RemoteHosts)
			res.Pairs[i].RemoteHosts = hosts[k]
			if _, seen := since[k]; !seen && pr.Path != "" {
				since[k] = res.Elapsed
			}
			res.Pairs[i].Since = since[k]
		}
		if res.Failed == 0 && res.Reached && res.OverlayOK {
			break
		}
		if time.Now().After(deadline) {
			for _, p := range peers {
				tail := ""
				if p.proc != nil {
					tail = p.proc.Tail(1500)
				} else {
					tail = p.tab.Diagnostics(3000)
				}
				logf("netlab: %s: ok=%v state=%s links=%d acc=%.3f\n%s", p.name, p.ok, p.st.State, len(p.st.Links), accOf(p.st), tail)
			}
			break
		}
	}
	for _, p := range peers {
		p.stop()
	}
	if cfg.RelayRuns > 0 {
		if res.RelayMBs, err = relayThroughput(ctx, l, cfg, tid.Hex()); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// writeTask writes the lab's task for n peers (MNIST MLP, FedLay, 8 ring
// spaces, a Dirichlet partition) to dir/task.json.
func writeTask(dir string, n int, target float64) (task.Spec, ident.Task, string, error) {
	spec := task.DefaultSpec()
	spec.Name = "netlab"
	spec.Aggregator = "fedlay"
	spec.LocalEpochs, spec.LocalSteps = 0, 30
	spec.PeriodMS = 1000
	spec.Partition = task.Partition{Parts: n, Seed: 1, Spec: "dirichlet:0.5"}
	spec.TargetAccuracy = target
	spec.Spaces = 8
	canon, err := spec.Canonical()
	if err != nil {
		return spec, ident.Task{}, "", err
	}
	tid, err := spec.ID()
	if err != nil {
		return spec, ident.Task{}, "", err
	}
	file := filepath.Join(dir, "task.json")
	return spec, tid, file, os.WriteFile(file, canon, 0o644)
}

// startNatives starts a native peer in the home of each of cfg.Peers
// (named by home and index: a0, a1, b0, ...), with key seeds[i] and
// shard i of n. On error the peers started so far are returned too, for
// the caller to stop.
func startNatives(l *Lab, cfg MatrixConfig, taskFile string, seeds [][]byte, ids []ident.Peer, n int) ([]*labPeer, error) {
	var peers []*labPeer
	count := map[string]int{}
	for i, home := range cfg.Peers {
		h := l.Home(home)
		if h == nil {
			return peers, fmt.Errorf("no home %q", home)
		}
		name := fmt.Sprintf("%s%d", home, count[home])
		count[home]++
		key := filepath.Join(cfg.Dir, name+".key")
		if err := os.WriteFile(key, []byte(hex.EncodeToString(seeds[i])+"\n"), 0o600); err != nil {
			return peers, err
		}
		proc, err := StartProc(h.Host, cfg.Dir, name, cfg.PeerBin, []string{"peer",
			"-signal", "ws://" + SignalAddr + "/signal", "-task", taskFile, "-key", key,
			"-status", "127.0.0.1:0", "-data", cfg.Data, "-shard", fmt.Sprintf("%d/%d", i, n),
			"-eval-every", "3s", "-eval-samples", "2000", "-every", "0", "-v"}, true)
		if err != nil {
			return peers, err
		}
		peers = append(peers, &labPeer{name: name, home: h, id: ids[i], known: true, proc: proc})
	}
	return peers, nil
}

// relayThroughput runs `peerlearn bench transfer -relay` in the first
// symmetric home: two rtc managers connected only through the lab's
// TURN server, from behind the home's NAT; the median MB/s.
func relayThroughput(ctx context.Context, l *Lab, cfg MatrixConfig, tid string) (float64, error) {
	var home *Home
	for _, h := range l.Homes {
		if h.NAT == Symmetric && home == nil {
			home = h
		}
	}
	if home == nil {
		return 0, errors.New("relay throughput: no symmetric home")
	}
	args := []string{"bench", "transfer", "-signal", "ws://" + SignalAddr + "/signal", "-task", tid, "-relay",
		"-runs", fmt.Sprint(cfg.RelayRuns), "-size", fmt.Sprint(cfg.RelayBytes)}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := Command(home.Host, cfg.PeerBin, args...)
	out, err := cmd.Output()
	if cctx.Err() != nil {
		return 0, cctx.Err()
	}
	if err != nil {
		return 0, fmt.Errorf("bench transfer -relay: %v: %s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "bench-transfer webrtc_mbs="); ok {
			var mbs float64
			if _, err := fmt.Sscan(strings.Fields(rest)[0], &mbs); err == nil {
				return mbs, nil
			}
		}
	}
	return 0, fmt.Errorf("bench transfer -relay: no result line in %q", out)
}

// summarise builds the matrix from the peers' latest statuses: every
// pair the overlay makes neighbours, each seen from both ends.
func summarise(peers []*labPeer, spaces int, target float64) MatrixResult {
	var r MatrixResult
	r.Reached = true
	var ids []ident.Peer
	for _, p := range peers {
		a := accOf(p.st)
		r.Acc = append(r.Acc, a)
		r.AccMean += a / float64(len(peers))
		r.Reached = r.Reached && p.ok && a >= target
		if p.known {
			ids = append(ids, p.id)
		}
	}
	// Admitted peers sit where their tokens' salts put them, not at
	// H(id): the expected tables take the coordinates the peers report
	// (a tab's, from its native neighbours' /status).
	var sts []netpeer.Status
	for _, p := range peers {
		if p.ok {
			sts = append(sts, p.st)
		}
	}
	want := overlay.ExpectedTablesAt(ids, spaces, netpeer.PlacementOf(sts))
	for i, a := range peers {
		for _, b := range peers[i+1:] {
			if a.known && b.known && !slices.Contains(want[a.id].Neighbors(), b.id) {
				continue // not neighbours: no link expected
			}
			pr := Pair{A: a.name, B: b.name, Want: wantPath(a.home, b.home)}
			la, oka := linkTo(a.st, b.id)
			lb, okb := linkTo(b.st, a.id)
			if a.known && b.known && oka && okb {
				pr.Local, pr.Remote, pr.Path, pr.RemoteHosts = la.Local, la.Remote, la.Path, la.RemoteHosts
				pr.ConnectMS = la.ConnectMS
				if lb.Offered || la.ConnectMS == 0 {
					pr.ConnectMS = lb.ConnectMS
				}
			} else {
				r.Failed++
			}
			r.Pairs = append(r.Pairs, pr)
		}
	}
	r.OverlayOK = len(ids) == len(peers)
	for _, p := range peers {
		var expect []string
		for _, id := range want[p.id].Neighbors() {
			expect = append(expect, id.Hex())
		}
		if !p.ok || !slices.Equal(expect, p.st.Neighbors) {
			r.OverlayOK = false
			r.OverlayDiff = append(r.OverlayDiff, fmt.Sprintf("%s (fresh %v): neighbours %v, want %v", p.name, p.ok, short(p.st.Neighbors), short(expect)))
		}
	}
	return r
}

// short is ids cut to their first 8 hex digits, as the logs print them.
func short(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id[:min(8, len(id))]
	}
	return out
}

// wantPath is the path two homes' NATs allow, with a TURN server.
func wantPath(ha, hb *Home) string { return ExpectedPath(ha, hb, true) }

// ExpectedPath is the path ICE can find between peers in homes ha and hb
// from their NATs alone (RFC 4787's mapping and filtering), given STUN
// and, if turn, a TURN server: "direct", "relay", or "none".
//
//	              full-cone  port-restr.  symmetric  udp-blocked
//	full-cone     direct     direct       direct     relay
//	port-restr.   direct     direct       relay      relay
//	symmetric     direct     relay        relay      relay
//	udp-blocked   relay      relay        relay      relay
//
// Within one home: direct (host candidates). A full cone takes checks
// from any address once its port is mapped, so whatever the other side's
// port it answers, and the other side's own reply opened its filter. Two
// port-restricted cones keep one public port for every destination, so
// each one's server-reflexive address (learnt from STUN) is where the
// other's checks arrive, and each one's checks out open its filter for
// the other's: whichever check crosses second gets in (hole punching).
// A symmetric NAT sends each destination from a new port that no STUN
// server has seen: only a full cone lets the first check from it in.
// Whether unsolicited packets are dropped or rejected (ICMP) does not
// enter: ICE's checks are retransmitted.
func ExpectedPath(ha, hb *Home, turn bool) string {
	relay := "relay"
	if !turn {
		relay = "none"
	}
	if ha == hb {
		return "direct"
	}
	a, b := ha.NAT, hb.NAT
	switch {
	case a == UDPBlocked || b == UDPBlocked:
		return relay
	case a == FullCone || b == FullCone:
		return "direct"
	case a == PortRestricted && b == PortRestricted:
		return "direct"
	}
	return relay // a symmetric side and a port-restricted or symmetric one
}

func accOf(s netpeer.Status) float64 {
	if s.Learn == nil {
		return 0
	}
	return s.Learn.Accuracy
}

func linkTo(s netpeer.Status, id ident.Peer) (rtc.Link, bool) {
	h := id.Hex()
	for _, l := range s.Links {
		if l.Peer == h && l.Path != "" {
			return l, true
		}
	}
	return rtc.Link{}, false
}

// allNeighbours draws n keys (seeded) until every pair of their peers is
// adjacent in some ring of the overlay with this many spaces, so that
// every pair of peers has a link to look at.
func allNeighbours(n, spaces int, seed uint64) ([][]byte, []ident.Peer, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6e65746c6162))
	for range 10000 {
		seeds := make([][]byte, n)
		ids := make([]ident.Peer, n)
		for i := range n {
			seeds[i] = make([]byte, 32)
			for j := range seeds[i] {
				seeds[i][j] = byte(rng.Uint32())
			}
			id, err := signal.IdentityFromSeed(seeds[i])
			if err != nil {
				return nil, nil, err
			}
			ids[i] = id.ID()
		}
		tables := overlay.ExpectedTables(ids, spaces)
		full := true
		for _, id := range ids {
			full = full && len(tables[id].Neighbors()) == n-1
		}
		if full {
			return seeds, ids, nil
		}
	}
	return nil, nil, errors.New("no key set where every pair is adjacent")
}

func fetchStatus(ns, url string) (netpeer.Status, bool) {
	var s netpeer.Status
	resp, err := HTTPClient(ns, 2*time.Second).Get(url)
	if err != nil {
		return s, false
	}
	defer resp.Body.Close()
	return s, json.NewDecoder(resp.Body).Decode(&s) == nil
}

func waitTCP(ctx context.Context, ns, addr string, limit time.Duration) error {
	end := time.Now().Add(limit)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := DialContext(ctx, ns, "tcp", addr)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(end) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Percentile returns the p-th percentile (0..100, nearest rank) of xs.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	i := int(p/100*float64(len(s)) + 0.5)
	if i < 1 {
		i = 1
	}
	if i > len(s) {
		i = len(s)
	}
	return s[i-1]
}

// Table renders the pairs, one per line: the path each took and the
// one their NATs allow (ExpectedPath).
func (r *MatrixResult) Table() string {
	var b strings.Builder
	for _, p := range r.Pairs {
		mark := ""
		if p.Path != p.Want {
			mark = "  <- not the expected path"
		}
		fmt.Fprintf(&b, "%-4s %-4s %-6s %-5s/%-5s %5d ms  at %4.0fs  expected %s%s\n", p.A, p.B, or(p.Path, "FAILED"), p.Local, p.Remote, p.ConnectMS, p.Since.Seconds(), p.Want, mark)
	}
	return b.String()
}

func or(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
