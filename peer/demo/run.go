package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/internal/report"
	"github.com/peerlearn/peerlearn/peer/lightfiles"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Config is one demo run.
type Config struct {
	// PeerBin and SignalBin are the built `peerlearn` and `signalserver`.
	PeerBin, SignalBin string
	// Addr is where the signalling server listens (and serves the page).
	Addr string
	// WebDir is the page the server serves; WasmDir the browser peer's
	// build (empty: not served).
	WebDir, WasmDir string
	// DataDir holds the datasets (make data).
	DataDir string
	// Peers is the number of native peer processes.
	Peers int
	// Spaces is the overlay's ring spaces L (degree up to 2L).
	Spaces int
	// Target is the mean test accuracy at which the demo stops; Limit the
	// time after which it stops anyway.
	Target float64
	Limit  time.Duration
	// Every is the period of the live table.
	Every time.Duration
	// OutDir receives demo.csv, demo.png and the processes' logs.
	OutDir string
	// Codec is the task's model codec (a spec's "codec"; "f32": float32
	// as it is).
	Codec string
	// LAN: serve on every interface (Addr's port) over HTTPS with a
	// self-signed certificate for the machine's LAN address, print the
	// join URL with a QR code (also on the page), and let the native
	// peers use their real interfaces (see lan.go). Off: 127.0.0.1 only.
	LAN bool
	// Stdout receives the table and the result line; Logf diagnostics.
	Stdout io.Writer
	Logf   func(format string, args ...any)
}

// DefaultConfig is what `make demo` runs.
func DefaultConfig() Config {
	return Config{
		Addr:    "127.0.0.1:8080", // the URL the README and the page name
		WebDir:  "web",            // the volunteer's page
		DataDir: ".data",          // where make data puts MNIST
		Peers:   8,                // enough for an L=3 overlay with distinct neighbours
		Spaces:  3,                // degree up to 6: every peer has several neighbours among 8
		Target:  0.90,             // FedLay's MNIST figure (Table III: 90.2%)
		Limit:   5 * time.Minute,  // the bound on a demo
		Every:   3 * time.Second,  // a table row every 3 s
		OutDir:  "out/demo",
		Codec:   DemoCodec,
	}
}

// Spec is the demo's task: MNIST, the benchmark MLP, Dirichlet(0.5)
// shards, FedLay confidence aggregation, 50 local SGD steps per 2 s round,
// models sent as 4-bit deltas against each neighbour's copy (DemoCodec).
func Spec(peers int, target float64) task.Spec {
	s := task.DefaultSpec()
	s.Name = "demo-mnist"
	s.Codec = DemoCodec
	s.LocalEpochs, s.LocalSteps = 0, 50
	s.PeriodMS = 2000
	s.TargetAccuracy = target
	s.Partition = task.Partition{Parts: peers, Seed: 1, Spec: "dirichlet:0.5"}
	return s
}

// DemoCodec is the demo's model codec: the compression scenario's best
// (`sim train -scenario compression`: about 7x fewer bytes to the same
// accuracy as float32, within 0.5 points for every method).
const DemoCodec = "delta-int4"

// JoinURL is the page a browser opens to join the demo's task.
func JoinURL(addr string, tid ident.Task) string {
	return fmt.Sprintf("http://%s/?task=%s", addr, tid.Hex())
}

// Result is what the demo measured at its end.
type Result struct {
	Peers                   int
	AccMean, AccMin, AccMax float64
	Correctness             float64
	BytesMoved              uint64
	Elapsed                 time.Duration
	ReachedTarget           bool
}

// Line is the demo's last line.
func (r Result) Line() string {
	return fmt.Sprintf("demo peers=%d acc_mean=%.4f correctness=%.3f mb_per_peer=%.1f", r.Peers, r.AccMean, floorTo3(r.Correctness), r.MBPerPeer())
}

// MBPerPeer is the bytes the peers sent (everything on their transport:
// models, overlay, acknowledgements) per peer, in MB.
func (r Result) MBPerPeer() float64 {
	if r.Peers == 0 {
		return 0
	}
	return float64(r.BytesMoved) / float64(r.Peers) / 1e6
}

// floorTo3 never rounds an incorrect overlay up to 1.000.
func floorTo3(x float64) float64 { return math.Floor(x*1000) / 1000 }

// Run starts the server and the peers, reports until the target or the
// limit, stops everything (peers leave gracefully) and returns the result.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Peers < 2 || cfg.Spaces < 1 || cfg.Target <= 0 || cfg.Target > 1 || cfg.Limit <= 0 || cfg.Every <= 0 {
		return Result{}, fmt.Errorf("%w: peers %d, spaces %d, target %v, limit %v, every %v", ErrConfig, cfg.Peers, cfg.Spaces, cfg.Target, cfg.Limit, cfg.Every)
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	logDir := filepath.Join(cfg.OutDir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return Result{}, err
	}
	listen, local := cfg.Addr, cfg.Addr // where the server listens; where this machine reaches it
	var lanHost string                  // LAN: the join URL's host:port
	if cfg.LAN {
		_, port, err := net.SplitHostPort(cfg.Addr)
		if err != nil {
			return Result{}, fmt.Errorf("%w: addr %q: %v", ErrConfig, cfg.Addr, err)
		}
		ip, err := lanIP()
		if err != nil {
			return Result{}, err
		}
		listen, local, lanHost = net.JoinHostPort("0.0.0.0", port), net.JoinHostPort("127.0.0.1", port), net.JoinHostPort(ip.String(), port)
	}
	// A clear error when the port is taken, before starting anything.
	if ln, err := net.Listen("tcp", listen); err != nil {
		return Result{}, fmt.Errorf("%w: %s: %v (is another demo or signalserver running?)", ErrAddrInUse, listen, err)
	} else {
		ln.Close()
	}

	spec := Spec(cfg.Peers, cfg.Target)
	spec.Spaces = cfg.Spaces // the task's L: every peer reads it from the spec
	if cfg.Codec != "" {
		spec.Codec = cfg.Codec
	}
	if spec.Codec == "f32" {
		spec.Codec = "" // float32 as it is: the task every demo ran before codecs
	}
	canon, err := spec.Canonical()
	if err != nil {
		return Result{}, err
	}
	tid, err := spec.ID()
	if err != nil {
		return Result{}, err
	}
	taskFile := filepath.Join(cfg.OutDir, "task.json")
	if err := os.WriteFile(taskFile, canon, 0o644); err != nil {
		return Result{}, err
	}

	srvArgs := []string{"-addr", listen, "-task", taskFile}
	joinURL, sigURL := JoinURL(cfg.Addr, tid), "ws://"+cfg.Addr+"/signal"
	peerNet := []string{"-loopback"}
	webDir := cfg.WebDir
	if cfg.LAN {
		certFile := filepath.Join(cfg.OutDir, "cert.pem")
		host, _, _ := net.SplitHostPort(lanHost)
		srvArgs = append(srvArgs, "-tls-self-signed", host+",127.0.0.1,localhost", "-tls-self-signed-out", certFile)
		joinURL, sigURL = fmt.Sprintf("https://%s/?task=%s", lanHost, tid.Hex()), "wss://"+local+"/signal"
		peerNet = []string{"-signal-ca", certFile}
		if webDir != "" {
			webDir = filepath.Join(cfg.OutDir, "web")
			if err := pageWithQR(cfg.WebDir, webDir, joinURL); err != nil {
				return Result{}, err
			}
		}
	}
	if webDir != "" {
		srvArgs = append(srvArgs, "-web", webDir)
	} else {
		srvArgs = append(srvArgs, "-no-web")
	}
	if cfg.WasmDir != "" {
		srvArgs = append(srvArgs, "-wasm", cfg.WasmDir)
		lightShards(cfg, spec, logf)
	}
	srv, err := startChild("signalserver", logDir, cfg.SignalBin, srvArgs...)
	if err != nil {
		return Result{}, err
	}
	defer srv.Stop(5 * time.Second)
	if err := waitListening(ctx, local, 10*time.Second); err != nil {
		return Result{}, fmt.Errorf("signalserver: %w (log: %s)", err, srv.Log)
	}
	fmt.Fprintf(cfg.Stdout, "demo: signalling server on %s; open %s in a browser to join the training\n", listen, joinURL)
	if cfg.LAN {
		for done := false; !done; { // the certificate's fingerprints, which the server printed first
			select {
			case l := <-srv.lines:
				fmt.Fprintf(cfg.Stdout, "demo: certificate %s\n", l)
			default:
				done = true
			}
		}
		fmt.Fprintf(cfg.Stdout, "demo: on a phone on this network (the certificate is self-signed: accept the warning):\n")
		printQR(cfg.Stdout, joinURL)
	}

	peers := make([]*child, 0, cfg.Peers)
	defer func() {
		// Peers leave gracefully (their neighbours re-link), then the server goes.
		for _, p := range peers {
			p.Stop(10 * time.Second)
		}
	}()
	fmt.Fprintf(cfg.Stdout, "demo: or add a native peer (a GPU companion built by `make companion`: add -backend torch): %s peer -signal %s %s -task %s -data %s\n",
		cfg.PeerBin, sigURL, strings.Join(peerNet, " "), taskFile, cfg.DataDir)
	for i := range cfg.Peers {
		args := append([]string{"peer", "-signal", sigURL}, peerNet...)
		args = append(args, "-status", "127.0.0.1:0", "-every", "0",
			"-task", taskFile, "-data", cfg.DataDir, "-shard", fmt.Sprintf("%d/%d", i, cfg.Peers),
			"-eval-every", "3s", "-eval-samples", "2000", "-threads", "1",
			"-share-progress") // the demo's own peers: the page's task list shows the swarm's accuracy
		p, err := startChild(fmt.Sprintf("peer%d", i), logDir, cfg.PeerBin, args...)
		if err != nil {
			return Result{}, err
		}
		peers = append(peers, p)
		if err := p.waitFirstLine(ctx, 20*time.Second); err != nil {
			return Result{}, err
		}
		logf("demo: peer%d %s up (status %s)", i, p.id[:8], p.status)
	}
	return watch(ctx, cfg, peers)
}

// sample is one row of the live table.
type sample struct {
	t                       time.Duration
	accMean, accMin, accMax float64
	evaluated               int
	correctness             float64
	others                  int // overlay members that are not the demo's peers (browsers)
	bytes                   uint64
}

func watch(ctx context.Context, cfg Config, peers []*child) (Result, error) {
	client := &http.Client{Timeout: 2 * time.Second}
	start := time.Now()
	var rows []sample
	fmt.Fprintf(cfg.Stdout, "%7s  %8s %8s %8s  %5s  %11s  %9s  %8s\n", "time_s", "acc_mean", "acc_min", "acc_max", "evals", "correctness", "MB_moved", "browsers")
	tick := time.NewTicker(cfg.Every)
	defer tick.Stop()
	var last sample
	var wasSilent []string // peers that did not answer the last poll
	for {
		select {
		case <-ctx.Done():
			// Interrupted (Ctrl-C, SIGTERM): report what was reached.
			return finish(cfg, rows, last, start, false, "interrupted"), nil
		case <-tick.C:
		}
		for _, p := range peers {
			if p.Exited() {
				return Result{}, fmt.Errorf("%s exited (log: %s)", p.Name, p.Log)
			}
		}
		sts, silentPeers := pollStatuses(ctx, client, peers)
		if ctx.Err() != nil {
			continue // interrupted mid-poll: the select above reports
		}
		var silent, silentIDs []string
		for _, p := range silentPeers {
			silent, silentIDs = append(silent, p.Name), append(silentIDs, p.id)
		}
		if !slices.Equal(silent, wasSilent) {
			if len(silent) > 0 {
				cfg.Logf("demo: no /status answer from %s (stopped or hung?); the table shows the others", strings.Join(silent, ", "))
			} else {
				cfg.Logf("demo: every peer answers /status again")
			}
			wasSilent = silent
		}
		if len(sts) == 0 {
			continue
		}
		s := summarize(time.Since(start), sts)
		var err error
		if s.correctness, s.others, err = correctness(sts, cfg.Spaces, silentIDs...); err != nil {
			return Result{}, err
		}
		rows, last = append(rows, s), s
		absent := ""
		if len(silent) > 0 {
			absent = "  silent: " + strings.Join(silent, ",")
		}
		fmt.Fprintf(cfg.Stdout, "%7.1f  %8.4f %8.4f %8.4f  %2d/%-2d  %11.3f  %9.1f  %8d%s\n",
			s.t.Seconds(), s.accMean, s.accMin, s.accMax, s.evaluated, len(peers), floorTo3(s.correctness), float64(s.bytes)/1e6, s.others, absent)
		done := s.evaluated == len(peers) && s.accMean >= cfg.Target && s.correctness == 1
		if done {
			return finish(cfg, rows, last, start, true, "target reached"), nil
		}
		if time.Since(start) >= cfg.Limit {
			return finish(cfg, rows, last, start, false, fmt.Sprintf("stopped at the %v limit before the target", cfg.Limit)), nil
		}
	}
}

func summarize(t time.Duration, sts []netpeer.Status) sample {
	s := sample{t: t, accMin: math.Inf(1), accMax: math.Inf(-1)}
	var sum float64
	for _, st := range sts {
		s.bytes += st.RTC.BytesOut
		if st.Learn == nil || st.Learn.Evals == 0 {
			continue
		}
		a := st.Learn.Accuracy
		s.evaluated++
		sum += a
		s.accMin, s.accMax = min(s.accMin, a), max(s.accMax, a)
	}
	if s.evaluated == 0 {
		s.accMin, s.accMax = 0, 0
		return s
	}
	s.accMean = sum / float64(s.evaluated)
	return s
}

func finish(cfg Config, rows []sample, last sample, start time.Time, reached bool, how string) Result {
	r := Result{
		Peers: cfg.Peers, AccMean: last.accMean, AccMin: last.accMin, AccMax: last.accMax,
		Correctness: last.correctness, BytesMoved: last.bytes, Elapsed: time.Since(start), ReachedTarget: reached,
	}
	if err := writeOutputs(cfg.OutDir, rows); err != nil {
		cfg.Logf("demo: %v", err)
	}
	fmt.Fprintf(cfg.Stdout, "demo: %s after %.0f s: %d peers, mean accuracy %.4f (min %.4f, max %.4f), overlay correctness %.3f, %.1f MB moved; plot in %s\n",
		how, r.Elapsed.Seconds(), r.Peers, r.AccMean, r.AccMin, r.AccMax, floorTo3(r.Correctness), float64(r.BytesMoved)/1e6, filepath.Join(cfg.OutDir, "demo.png"))
	return r
}

func writeOutputs(dir string, rows []sample) error {
	if len(rows) == 0 {
		return nil
	}
	csvRows := make([][]any, len(rows))
	var x, mean, lo, hi, corr []float64
	for i, s := range rows {
		csvRows[i] = []any{s.t.Seconds(), s.accMean, s.accMin, s.accMax, s.evaluated, s.correctness, s.bytes}
		x = append(x, s.t.Seconds())
		mean, lo, hi = append(mean, s.accMean), append(lo, s.accMin), append(hi, s.accMax)
		corr = append(corr, s.correctness)
	}
	if err := report.WriteCSV(filepath.Join(dir, "demo.csv"),
		[]string{"time_s", "acc_mean", "acc_min", "acc_max", "evaluated", "correctness", "bytes_out"}, csvRows); err != nil {
		return err
	}
	p := report.LinePlot{Title: "PeerLearn demo: MNIST over WebRTC (FedLay MEP)", XLabel: "time (s)", YLabel: "test accuracy / overlay correctness"}
	p.Add("mean accuracy", x, mean)
	p.Add("min accuracy", x, lo)
	p.Add("max accuracy", x, hi)
	p.Add("overlay correctness", x, corr)
	return p.Save(filepath.Join(dir, "demo.png"))
}

func waitListening(ctx context.Context, addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not listening on %s after %v: %w", addr, timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ErrConfig and ErrAddrInUse are the demo's own errors.
var (
	ErrConfig    = errors.New("demo: invalid configuration")
	ErrAddrInUse = errors.New("demo: address in use")
)

// lightShards writes the light files of the demo's partition where the
// server serves the data to tabs (the build's data/, as `make wasm`
// links it), unless they are there: `make wasm` cuts make demo's eight
// parts only, and a tab that finds none for the task fetches and cuts
// the whole dataset instead (55 MB for MNIST, a minute on a busy
// machine before it can join). Failing that costs only that.
func lightShards(cfg Config, spec task.Spec, logf func(string, ...any)) {
	out := filepath.Join(cfg.WasmDir, "data")
	if _, err := os.Stat(out); err != nil {
		logf("demo: no data under %s for tabs: %v", cfg.WasmDir, err)
		return
	}
	n, err := lightfiles.WriteTask(os.DirFS(cfg.DataDir), out, spec, false)
	switch {
	case err != nil:
		logf("demo: light shards for tabs not written (tabs fetch the whole %s): %v", spec.Dataset, err)
	case n > 0:
		logf("demo: light shards for tabs: %d files written under %s", n, out)
	}
}
