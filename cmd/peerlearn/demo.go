package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/peerlearn/peerlearn/peer/demo"
)

func init() {
	register(&command{
		name:    "demo",
		summary: "the main job of `make demo`: a signalling server and 8 native peers training MNIST over WebRTC",
		run:     runDemo,
	})
}

func runDemo(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	cfg := demo.DefaultConfig()
	fs := newFlags("demo")
	fs.StringVar(&cfg.DataDir, "data", defaultDataDir(), "data directory filled by `make data`")
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "signalling server address (serves the page too)")
	fs.StringVar(&cfg.WebDir, "web", cfg.WebDir, "page directory the server serves (empty: none)")
	fs.StringVar(&cfg.WasmDir, "wasm", cfg.WasmDir, "browser peer build directory the server serves (empty: none)")
	fs.IntVar(&cfg.Peers, "peers", cfg.Peers, "native peer processes")
	fs.IntVar(&cfg.Spaces, "spaces", cfg.Spaces, "overlay ring spaces L")
	fs.Float64Var(&cfg.Target, "target", cfg.Target, "stop at this mean test accuracy")
	fs.DurationVar(&cfg.Limit, "limit", cfg.Limit, "stop after this long anyway")
	fs.DurationVar(&cfg.Every, "every", cfg.Every, "period of the live table")
	fs.StringVar(&cfg.OutDir, "out", cfg.OutDir, "folder for demo.csv, demo.png and the processes' logs")
	fs.StringVar(&cfg.Codec, "codec", cfg.Codec, "how models travel (a task spec's codec: f32, f16, int8, delta-int8, delta-int4, delta-topk[:fraction])")
	fs.BoolVar(&cfg.LAN, "lan", false, "serve on every interface over HTTPS (self-signed) and print the join URL for the LAN with a QR code; native peers use their real interfaces")
	signalBin := fs.String("signalserver", "", "signalserver binary (default: beside this one)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cfg.PeerBin = self
	cfg.SignalBin = *signalBin
	if cfg.SignalBin == "" {
		cfg.SignalBin = filepath.Join(filepath.Dir(self), "signalserver")
	}
	if _, err := os.Stat(cfg.SignalBin); err != nil {
		return fmt.Errorf("%w: no signalserver binary at %s (make build, or -signalserver)", errUsage, cfg.SignalBin)
	}
	cfg.Stdout, cfg.Logf = stdout, logf
	r, err := demo.Run(ctx, cfg)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, r.Line())
	return err
}
