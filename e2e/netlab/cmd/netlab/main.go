// Command netlab brings the network lab of package netlab up by hand, or
// runs its connectivity matrix as a benchmark. It needs root.
//
//	netlab up -bin bin -web web -wasm bin/web -data .data [-coturn]
//	    builds the lab, starts the signalling server (and TURN) in the
//	    internet namespace, prints what is where and how to start peers
//	    and browsers in the homes, and tears everything down on SIGINT or
//	    SIGTERM (or after -for).
//	netlab bench -bin bin -data .data [-smoke] [-coturn] [-delay D -jitter J -loss P]
//	    runs the matrix, a peer in every home and two in home a (on
//	    shaped home links with -delay, -jitter or -loss: each way, on
//	    every link; then one 1 MiB relay transfer) and prints, last,
//	    netlab pairs=N direct=D relay=R failed=F wrong_path_failed=W connect_p50_ms=A connect_p95_ms=B relay_mbs=T acc_mean=X
//	    (W: pairs connected over another path than netlab.ExpectedPath)
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/peerlearn/peerlearn/e2e/netlab"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: netlab up|bench [flags]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "up":
		err = up(ctx, os.Args[2:])
	case "bench":
		err = bench(ctx, os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: want up or bench", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "netlab:", err)
		os.Exit(1)
	}
}

func up(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("netlab up", flag.ExitOnError)
	bin := fs.String("bin", "bin", "directory with peerlearn and signalserver")
	web := fs.String("web", "web", "the page (signalserver -web)")
	wasm := fs.String("wasm", "bin/web", "the browser peer (signalserver -wasm)")
	data := fs.String("data", ".data", "the datasets (for the peers' command lines)")
	coturn := fs.Bool("coturn", false, "hand out Debian's coturn instead of the embedded TURN server")
	limit := fs.Duration("for", 0, "tear down after this long (0: on SIGINT/SIGTERM only)")
	fs.Parse(args)
	l, err := netlab.Start(netlab.DefaultConfig())
	if err != nil {
		return err
	}
	defer l.Close()
	dir, err := os.MkdirTemp("", "netlab-")
	if err != nil {
		return err
	}
	srv, err := netlab.StartServers(ctx, l, netlab.ServerConfig{
		SignalBin: filepath.Join(*bin, "signalserver"), Dir: dir, Coturn: *coturn,
		Web: []string{"-web", *web, "-wasm", *wasm},
	})
	if err != nil {
		return err
	}
	defer srv.Stop()
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	fmt.Print(l.Describe())
	fmt.Printf("signalling server and page: http://%s/ (logs in %s)\n", netlab.SignalAddr, dir)
	fmt.Printf("a native peer in home a:\n  ip netns exec %s %s peer -signal ws://%s/signal -data %s -status 127.0.0.1:9000 -v\n",
		l.Homes[0].Host, abs(filepath.Join(*bin, "peerlearn")), netlab.SignalAddr, abs(*data))
	fmt.Printf("a browser in home b (no media permission: its host candidates are mDNS names):\n  ip netns exec %s chromium --headless --no-sandbox --disable-gpu --remote-debugging-port=9222 http://%s/\n",
		l.Homes[1].Host, netlab.SignalAddr)
	fmt.Println("netlab: up; SIGINT or SIGTERM tears it down")
	var after <-chan time.Time
	if *limit > 0 {
		after = time.After(*limit)
	}
	select {
	case <-ctx.Done():
	case <-after:
	}
	fmt.Println("netlab: tearing down")
	return nil
}

func bench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("netlab bench", flag.ExitOnError)
	bin := fs.String("bin", "bin", "directory with peerlearn and signalserver")
	data := fs.String("data", ".data", "the datasets")
	smoke := fs.Bool("smoke", false, "four peers (full cone, symmetric, UDP blocked, port-restricted), a low target and one small relay transfer (checks the path, not the numbers)")
	coturn := fs.Bool("coturn", false, "TURN by Debian's coturn instead of the embedded server")
	keep := fs.Bool("keep", false, "keep the logs (their directory is printed)")
	delay := fs.Duration("delay", 0, "shape every home's link: this delay each way (frames between homes cross two links)")
	jitter := fs.Duration("jitter", 0, "shaped links: ± this much uniform jitter on the delay (frames keep their order)")
	loss := fs.Float64("loss", 0, "shaped links: drop this fraction of frames each way")
	capped := fs.Bool("turn-capped", false, "keep the TURN server's default per-allocation bandwidth cap (4 MiB/s on a hardened server); default: lifted, so relay_mbs is what the relay path carries")
	fs.Parse(args)
	cfg := netlab.MatrixConfig{
		PeerBin: filepath.Join(*bin, "peerlearn"), SignalBin: filepath.Join(*bin, "signalserver"), Data: *data,
		Peers: []string{"a", "a", "b", "c", "d", "e", "f", "g", "h"}, Target: 0.8, Timeout: 180 * time.Second, Seed: 1, Coturn: *coturn,
		RelayRuns: 3, RelayBytes: 10 << 20, TURNUncapped: !*capped,
		Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) },
	}
	if *smoke {
		cfg.Peers, cfg.Target, cfg.Timeout, cfg.RelayRuns, cfg.RelayBytes = []string{"a", "b", "c", "e"}, 0.5, 90*time.Second, 1, 1<<20
	}
	dir, err := os.MkdirTemp("", "netlab-bench-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "netlab: logs in", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	cfg.Dir = dir
	labCfg := netlab.DefaultConfig()
	if *delay > 0 || *jitter > 0 || *loss > 0 {
		if *loss < 0 || *loss >= 1 || *jitter > *delay {
			return fmt.Errorf("shape: want 0 <= loss < 1 and jitter <= delay, got -delay %v -jitter %v -loss %v", *delay, *jitter, *loss)
		}
		labCfg.Shaped, labCfg.Seed = true, 1
		cfg.Shape = &netlab.Shape{Delay: *delay, Jitter: *jitter, Loss: *loss}
		// A relayed data channel carries a few hundred KB/s on such
		// links: one 1 MiB transfer, not three of 10 MiB.
		cfg.RelayRuns, cfg.RelayBytes = 1, 1<<20
		fmt.Fprintln(os.Stderr, "netlab: home links shaped:", cfg.Shape)
	}
	l, err := netlab.Start(labCfg)
	if err != nil {
		return err
	}
	defer l.Close()
	fmt.Fprint(os.Stderr, l.Describe())
	res, err := netlab.RunMatrix(ctx, l, cfg)
	if err != nil {
		return err
	}
	fmt.Print(res.Table())
	var direct, relay, unexpected int
	var ms []float64
	for _, p := range res.Pairs {
		if p.Path != "" && p.Path != p.Want {
			unexpected++
		}
		switch p.Path {
		case "direct":
			direct++
		case "relay":
			relay++
		}
		if p.Path != "" {
			ms = append(ms, float64(p.ConnectMS))
		}
	}
	fmt.Printf("after %v: overlay correct %v, every peer at %.2f: %v, accuracy %v\n", res.Elapsed.Round(time.Second), res.OverlayOK, cfg.Target, res.Reached, res.Acc)
	fmt.Printf("netlab pairs=%d direct=%d relay=%d failed=%d wrong_path_failed=%d connect_p50_ms=%.0f connect_p95_ms=%.0f relay_mbs=%.1f acc_mean=%.4f\n",
		len(res.Pairs), direct, relay, res.Failed, unexpected, netlab.Percentile(ms, 50), netlab.Percentile(ms, 95), res.RelayMBs, res.AccMean)
	return nil
}
