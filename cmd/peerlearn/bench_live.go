package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/internal/proc"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

func init() {
	register(&command{
		name:    "bench live",
		summary: "per method, the same task spec on real peers (processes, WebRTC on loopback) and in `sim train -spec`: mean accuracy of both",
		run:     runBenchLive,
	})
}

// liveMethods are bench live's methods and the spec each runs: small n,
// few rounds, MNIST; PENS in two rotated clusters.
func liveSpec(m string, n, rounds int) task.Spec {
	s := task.DefaultSpec()
	s.Name, s.Method, s.Aggregator = "live-"+m, m, "mean"
	s.Init = task.Init{Mode: "common", Seed: 7}
	s.LocalEpochs, s.LocalSteps, s.MaxRounds = 0, 20, rounds
	s.Partition = task.Partition{Parts: n, Seed: 1, Spec: "dirichlet:0.5"}
	s.PeriodMS, s.Spaces = 3000, 2
	switch m {
	case "gossip":
		s.PeriodMS = 500
	case "plexus":
		// Samples of half of max_peers (PlexusConfig), so each round
		// trains on some peers. A peer ends on the newest aggregate it
		// holds: the last round's only if it aggregated that round;
		// round k-1's if round k's sample was its last.
		s.MaxPeers = n + 2
	case "pens":
		s.Partition.Spec = "iid+rotate:0.5"
		s.Selection = task.Selection{Policy: "pens", K: 2}
		s.PeriodMS, s.Spaces = 1500, 5
	}
	return s
}

func runBenchLive(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("bench live")
	methods := fs.String("methods", "gossip,dpsgd,pens,plexus", "methods to run, comma-separated")
	n := fs.Int("n", 6, "peers")
	rounds := fs.Int("rounds", 12, "rounds (the spec's max_rounds; PENS needs more than its 10 step-1 rounds)")
	roundsFor := fs.String("rounds-for", "", "per-method rounds instead of -rounds, e.g. gossip=24 (a Gossip training merges one model, a D-PSGD round all the neighbours')")
	sigBin := fs.String("signalserver", "bin/signalserver", "the signalling server binary")
	dir := fs.String("data", defaultDataDir(), "data directory filled by `make data`")
	keep := fs.Bool("keep", false, "keep the real peers' logs (the folder is logged), to see why a run went astray")
	concurrent := fs.Bool("concurrent", false, "run the methods' real swarms at the same time rather than one after the other (each peer's measured training speed, which the simulator takes, then includes the others' load)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ms := strings.Split(*methods, ",")
	per, err := parseRoundsFor(*roundsFor, ms)
	if err != nil {
		return err
	}
	specs := make([]task.Spec, len(ms))
	for i, m := range ms {
		r := *rounds
		if pr, ok := per[m]; ok {
			r = pr
		}
		if m == "pens" {
			r = max(r, 12)
		}
		specs[i] = liveSpec(m, *n, r)
		if err := specs[i].ValidateFor(node.TaskEngine{}); err != nil {
			return err
		}
	}
	// The real swarms, one after the other or (-concurrent) all at once,
	// each with its own signalling server and peers; then the simulator
	// runs, one at a time (they are on virtual time: load changes only
	// how long they take).
	reals := make([]specOutcome, len(ms))
	errs := make([]error, len(ms))
	realCtx, cancelReal := context.WithCancel(ctx)
	defer cancelReal()
	runReal := func(i int) {
		logm := logf
		if *concurrent { // the swarms' log lines interleave: name the method
			logm = func(format string, args ...any) { logf(ms[i]+": "+format, args...) }
		}
		reals[i], errs[i] = realSpec(realCtx, self, *sigBin, specs[i], *n, *dir, *keep, logm)
		if errs[i] != nil {
			errs[i] = fmt.Errorf("%s on real peers: %w", ms[i], errs[i])
			cancelReal() // the other swarms' results would not be printed
		}
	}
	if *concurrent {
		var wg sync.WaitGroup
		for i := range ms {
			wg.Add(1)
			go func() { defer wg.Done(); runReal(i) }()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	for i, m := range ms {
		if !*concurrent {
			if runReal(i); errs[i] != nil {
				return errs[i]
			}
		}
		real, spec := reals[i], specs[i]
		// The real overlay's placement (the same graph) and the speed
		// each real peer trained at.
		sim, err := simSpec(ctx, spec, *n, *dir, real.place, real.speeds, logf)
		if err != nil {
			return fmt.Errorf("%s in the simulator: %w", m, err)
		}
		line := fmt.Sprintf("live method=%s peers=%d acc_real=%.4f acc_sim=%.4f", m, *n, real.acc, sim.acc)
		if m == "pens" {
			line += fmt.Sprintf(" precision=%.3f", real.precision)
		}
		logf("%s: real %v, sim %v; |real - sim| = %.1f points", m, real.took.Round(time.Second), sim.took.Round(time.Second), 100*math.Abs(real.acc-sim.acc))
		fmt.Fprintln(stdout, line)
	}
	return nil
}

// parseRoundsFor parses -rounds-for: method=rounds pairs, comma
// separated, each method one of methods and at most once, rounds >= 1.
func parseRoundsFor(arg string, methods []string) (map[string]int, error) {
	out := map[string]int{}
	if arg == "" {
		return out, nil
	}
	for _, kv := range strings.Split(arg, ",") {
		m, v, ok := strings.Cut(kv, "=")
		r, err := strconv.Atoi(v)
		switch {
		case !ok || err != nil || r < 1:
			return nil, fmt.Errorf("%w: -rounds-for %q: want method=rounds (rounds >= 1)", errUsage, kv)
		case !slices.Contains(methods, m):
			return nil, fmt.Errorf("%w: -rounds-for %q: %s is not among -methods %v", errUsage, kv, m, methods)
		case out[m] != 0:
			return nil, fmt.Errorf("%w: -rounds-for names %s twice", errUsage, m)
		}
		out[m] = r
	}
	return out, nil
}

// realSpec runs spec on n `peerlearn peer` processes (this binary) and a
// signalling server over WebRTC on loopback until every peer has trained
// its rounds and evaluated its final model.
func realSpec(ctx context.Context, self, sigBin string, spec task.Spec, n int, dir string, keep bool, logf func(string, ...any)) (specOutcome, error) {
	tmp, err := os.MkdirTemp("", "bench-live-")
	if err != nil {
		return specOutcome{}, err
	}
	if keep {
		logf("%s: the real peers' logs are in %s", spec.MethodOf(), tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	b, err := spec.Canonical()
	if err != nil {
		return specOutcome{}, err
	}
	tf := filepath.Join(tmp, "task.json")
	if err := os.WriteFile(tf, b, 0o644); err != nil {
		return specOutcome{}, err
	}
	// The server binds a port of its own choosing and logs it: a port
	// picked free here and passed in could be taken in between (a CI run
	// had two concurrent swarms' servers on one port, and one swarm's
	// peers were refused: "task ... is not hosted here").
	srv, err := proc.Start(proc.Options{Name: "signalserver", Bin: sigBin, Args: []string{"-addr", "127.0.0.1:0", "-no-web", "-task", tf},
		LogPath: filepath.Join(tmp, "signalserver.log"), DieWithParent: true})
	if err != nil {
		return specOutcome{}, err
	}
	defer srv.Stop(10 * time.Second) // after the peers' (deferred later, runs first)
	m, err := srv.WaitLog(ctx, 20*time.Second, proc.SignalServerListening)
	if err != nil {
		return specOutcome{}, fmt.Errorf("%w; its log ends %q", err, srv.Tail(2000))
	}
	addr := m[2]
	t0 := time.Now()
	status := make([]string, n)
	ids := make([]ident.Peer, n)
	var procs []*proc.Proc
	defer func() { // SIGTERM to all first: they leave at the same time
		for _, p := range procs {
			p.Signal(syscall.SIGTERM)
		}
		for _, p := range procs {
			p.Stop(10 * time.Second)
		}
	}()
	for i := range n {
		key := filepath.Join(tmp, fmt.Sprintf("peer%d.key", i))
		if err := os.WriteFile(key, []byte(hex.EncodeToString(liveKey(i))+"\n"), 0o600); err != nil {
			return specOutcome{}, err
		}
		id, err := signal.IdentityFromSeed(liveKey(i))
		if err != nil {
			return specOutcome{}, err
		}
		ids[i] = id.ID()
		p, err := proc.Start(proc.Options{Name: fmt.Sprintf("peer %d", i), Bin: self, LogPath: filepath.Join(tmp, fmt.Sprintf("peer%d.log", i)), DieWithParent: true,
			Args: []string{"peer", "-signal", "ws://" + addr + "/signal", "-loopback", "-status", "127.0.0.1:0",
				"-every", "0", "-task", tf, "-key", key, "-data", dir, "-shard", fmt.Sprintf("%d/%d", i, n),
				"-eval-every", "1s", "-eval-samples", fmt.Sprint(liveEvalSamples)}})
		if err != nil {
			return specOutcome{}, err
		}
		procs = append(procs, p)
		first, err := p.WaitFirst(ctx, 30*time.Second)
		if err != nil {
			return specOutcome{}, fmt.Errorf("%w; its log ends %q", err, p.Tail(2000))
		}
		if status[i] = proc.Field(first, "status"); status[i] == "" {
			return specOutcome{}, fmt.Errorf("peer %d: first line %q", i, first)
		}
	}
	client := http.Client{Timeout: 2 * time.Second}
	deadline := t0.Add(5 * time.Minute)
	for {
		time.Sleep(time.Second)
		var sts []method.Status
		var full []netpeer.Status
		var trainings []int
		var accs []float64
		var acc float64
		var secs []float64
		var samples []int
		for _, url := range status {
			st, err := fetchLive(&client, url)
			if err != nil || st.Learn == nil || st.Learn.Method == nil {
				break
			}
			if st.Learn.Method.Role != "done" || !st.Learn.EvalFinal {
				break
			}
			sts = append(sts, *st.Learn.Method)
			full = append(full, st)
			trainings = append(trainings, st.Learn.Rounds)
			accs = append(accs, st.Learn.Accuracy)
			secs, samples = append(secs, st.Learn.TrainSeconds), append(samples, st.Learn.TrainSamples)
			acc += st.Learn.Accuracy / float64(n)
		}
		if len(sts) == n {
			train, _, err := data.Load(os.DirFS(dir), spec.Dataset)
			if err != nil {
				return specOutcome{}, err
			}
			out := specOutcome{acc: acc, rounds: spec.MaxRounds, took: time.Since(t0), place: netpeer.PlacementOf(full), speeds: peerSpeeds(secs, samples)}
			logf("real: %s: training speeds %.0f samples/s", spec.MethodOf(), out.speeds)
			logStatuses(logf, "real", sts, trainings, accs, ids)
			out.precision = precision(sts, func(i int) int { return i }, ids, rotatedOf(spec, train, n))
			return out, nil
		}
		// A process that left will never be done: say so now, not at the
		// deadline.
		for _, p := range append([]*proc.Proc{srv}, procs...) {
			if p.Exited() {
				return specOutcome{}, fmt.Errorf("after %v: %s exited (%v); its log ends %q", time.Since(t0).Round(time.Second), p.Name, p.Cmd.ProcessState, p.Tail(2000))
			}
		}
		if time.Now().After(deadline) {
			return specOutcome{}, fmt.Errorf("after %v only %d of %d peers done; peer 0's log ends %q", time.Since(t0).Round(time.Second), len(sts), n, procs[0].Tail(2000))
		}
		if err := ctx.Err(); err != nil {
			return specOutcome{}, err
		}
	}
}

// peerSpeeds is each real peer's training speed, samples over seconds
// of its trainings; a peer that did not train (a Plexus peer no sample
// drew) gets all the peers' together; nil if none trained.
func peerSpeeds(secs []float64, samples []int) []float64 {
	var allSecs float64
	var allSamples int
	for i := range secs {
		if secs[i] > 0 && samples[i] > 0 {
			allSecs += secs[i]
			allSamples += samples[i]
		}
	}
	if allSamples == 0 {
		return nil
	}
	out := make([]float64, len(secs))
	for i := range secs {
		out[i] = float64(allSamples) / allSecs
		if secs[i] > 0 && samples[i] > 0 {
			out[i] = float64(samples[i]) / secs[i]
		}
	}
	return out
}

func fetchLive(c *http.Client, url string) (netpeer.Status, error) {
	var st netpeer.Status
	resp, err := c.Get(url)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// logStatuses logs what each peer's core did: where a real run and a
// simulated one part, these say why (rounds trained, timed out, models
// that came too late, whose models it averaged). trainings[i] is peer
// i's finished trainings, accs[i] its final model's accuracy; ids lists
// the peers by index.
func logStatuses(logf func(string, ...any), run string, sts []method.Status, trainings []int, accs []float64, ids []ident.Peer) {
	index := map[ident.Peer]int{}
	for i, id := range ids {
		index[id] = i
	}
	peers := func(l []ident.Peer) []int {
		out := make([]int, 0, len(l))
		for _, id := range l {
			if j, ok := index[id]; ok {
				out = append(out, j)
			}
		}
		return out
	}
	for i, s := range sts {
		logf("%s: peer %d: accuracy %.4f, round %d, trainings %d, peers %d, models sent %d received %d stale %d, timeouts %d, refused %d, selected %v, neighbours %v",
			run, i, accs[i], s.Round, trainings[i], s.Peers, s.ModelsSent, s.ModelsReceived, s.Stale, s.Timeouts, s.Refused, peers(s.Selected), peers(s.Neighbours))
	}
}
