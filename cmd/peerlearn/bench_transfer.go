package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server"
	"github.com/peerlearn/peerlearn/types/ident"
)

func init() {
	register(&command{
		name:    "bench transfer",
		summary: "model transfer throughput over a WebRTC data channel (rtc) vs plain TCP on loopback, MB/s",
		run:     runBenchTransfer,
	})
}

// runBenchTransfer sends a model-sized buffer between two real rtc
// Managers (pion WebRTC over 127.0.0.1, connected through an in-process
// signalling server: the signed manifest, 64 KiB chunks under flow
// control, the receiver's SHA-256 check and signed result) and over a
// plain loopback TCP connection (a 40-byte header with the size and
// SHA-256, the bytes, the receiver hashing what it read), -runs times
// each on connections opened beforehand, the transports taking turns. A
// run is timed from the send until the receiver holds every byte and the
// hash matched. It prints every run, then the medians (MB = 10^6 bytes)
// as one machine-readable line, last:
//
//	bench-transfer webrtc_mbs=71.1 tcp_mbs=644.0 ratio=0.110
func runBenchTransfer(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("bench transfer")
	size := fs.Int("size", 10<<20, "model bytes per transfer")
	runs := fs.Int("runs", 5, "timed transfers per transport (the median is reported)")
	warmup := fs.Int("warmup", 1, "untimed transfers per transport before")
	limit := fs.Duration("timeout", 60*time.Second, "give up on one transfer after this long")
	verbose := fs.Bool("v", false, "log the rtc managers' diagnostics to stderr")
	sigURL := fs.String("signal", "", "use this signalling server (and the STUN/TURN servers it hands out) instead of an in-process one on loopback; needs -task")
	taskHex := fs.String("task", "", "with -signal: the task ID (64 hex digits) to register for")
	relay := fs.Bool("relay", false, "connect only through the TURN relay the server hands out (ICE transport policy relay): the relay's throughput")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *size < 1 || *size > int(rtc.DefaultConfig().MaxTransferBytes) || *runs < 1 || *warmup < 0 || *limit <= 0 {
		return fmt.Errorf("%w: want 1 <= -size <= %d, -runs >= 1, -warmup >= 0, -timeout > 0",
			errUsage, rtc.DefaultConfig().MaxTransferBytes)
	}
	data := make([]byte, *size)
	rand.NewChaCha8([32]byte{'p', 'l'}).Read(data)
	sum := sha256.Sum256(data)

	rl := func(string, ...any) {}
	if *verbose {
		rl = logf
	}
	remote := remoteSignal{url: *sigURL, relay: *relay}
	if *sigURL != "" {
		var err error
		if remote.task, err = ident.ParseTask(*taskHex); err != nil {
			return fmt.Errorf("%w: -task: %v", errUsage, err)
		}
	}
	w, err := newRTCPair(ctx, rl, remote)
	if err != nil {
		return fmt.Errorf("webrtc: %w", err)
	}
	defer w.close()
	tc, err := newTCPPair()
	if err != nil {
		return fmt.Errorf("tcp: %w", err)
	}
	defer tc.close()

	type transport struct {
		name string
		send func(context.Context) (time.Time, error) // when the receiver had it all, checked
		mbs  []float64
	}
	ts := []*transport{
		{name: "webrtc", send: func(ctx context.Context) (time.Time, error) { return w.transfer(ctx, data, sum) }},
		{name: "tcp", send: func(ctx context.Context) (time.Time, error) { return tc.transfer(ctx, data, sum) }},
	}
	for i := range *warmup + *runs { // interleaved: load drifts hit both alike
		for _, t := range ts {
			tctx, cancel := context.WithTimeout(ctx, *limit)
			start := time.Now()
			at, err := t.send(tctx)
			el := at.Sub(start)
			cancel()
			if err != nil {
				return fmt.Errorf("%s transfer %d: %w", t.name, i+1, err)
			}
			mbs := float64(len(data)) / el.Seconds() / 1e6
			what := "warmup"
			if i >= *warmup {
				what = fmt.Sprintf("run %d/%d", i-*warmup+1, *runs)
				t.mbs = append(t.mbs, mbs)
			}
			fmt.Fprintf(stdout, "%-6s %-9s %d bytes in %-10v %8.1f MB/s\n", t.name, what, len(data), el.Round(time.Microsecond), mbs)
		}
	}
	for _, t := range ts {
		fmt.Fprintf(stdout, "%-6s median %.1f MB/s, best %.1f, worst %.1f over %d runs\n",
			t.name, median(t.mbs), slices.Max(t.mbs), slices.Min(t.mbs), len(t.mbs))
	}
	x, y := median(ts[0].mbs), median(ts[1].mbs)
	fmt.Fprintf(stdout, "bench-transfer webrtc_mbs=%.1f tcp_mbs=%.1f ratio=%.3f\n", x, y, x/y)
	return nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// rtcPair is two rtc Managers with an open data channel between them,
// and the in-process signalling server that introduced them.
type rtcPair struct {
	srv        *server.Server
	srvDone    chan error
	clients    []*signal.Client
	a, b       *rtc.Manager // a sends, b receives
	task       [32]byte
	sent, recv chan rtc.Event
	stop       context.CancelFunc
	wg         sync.WaitGroup // the event readers
}

// remoteSignal is an external signalling server for newRTCPair, and
// whether to connect through its TURN relay only.
type remoteSignal struct {
	url   string // "": an in-process server on loopback
	task  ident.Task
	relay bool
}

func newRTCPair(ctx context.Context, logf func(string, ...any), remote remoteSignal) (p *rtcPair, err error) {
	if remote.url != "" {
		p = &rtcPair{task: remote.task, sent: make(chan rtc.Event, 4), recv: make(chan rtc.Event, 4), stop: func() {}}
		defer func() {
			if err != nil {
				p.close()
			}
		}()
		return p, p.connect(ctx, logf, remote.url, remote.task, remote.relay)
	}
	spec := task.DefaultSpec()
	spec.Name = "bench-transfer"
	tid, err := spec.ID()
	if err != nil {
		return nil, err
	}
	scfg := server.DefaultConfig()
	scfg.Tasks = []task.Spec{spec}
	srv, err := server.New(scfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p = &rtcPair{
		srv: srv, srvDone: make(chan error, 1), task: tid,
		sent: make(chan rtc.Event, 4), recv: make(chan rtc.Event, 4), stop: func() {},
	}
	go func() { p.srvDone <- srv.Serve(ln) }()
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	return p, p.connect(ctx, logf, "ws://"+ln.Addr().String()+"/signal", tid, remote.relay)
}

// connect registers two managers with the server at url and opens a
// connection from b to a.
func (p *rtcPair) connect(ctx context.Context, logf func(string, ...any), url string, tid ident.Task, relay bool) error {
	dctx, stop := context.WithCancel(context.Background())
	p.stop = stop
	// a registers first, so b's welcome lists it as a contact: b's offer
	// goes through the server.
	var ms []*rtc.Manager
	for _, name := range []string{"a", "b"} {
		id, err := signal.NewIdentity(nil)
		if err != nil {
			return err
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		c, err := signal.Dial(cctx, url, id, tid, signal.DefaultClientConfig())
		cancel()
		if err != nil {
			return err
		}
		p.clients = append(p.clients, c)
		cfg := rtc.DefaultConfig()
		cfg.Identity, cfg.Task, cfg.ICEServers = id, p.task, c.Welcome().ICEServers
		cfg.LoopbackOnly, cfg.RelayOnly = p.srv != nil, relay // loopback with the in-process server
		cfg.Grace = time.Hour                                 // no overlay here: keep the connection
		cfg.Logf = func(format string, args ...any) { logf("bench transfer: "+name+": "+format, args...) }
		m, err := rtc.NewManager(cfg)
		if err != nil {
			return err
		}
		m.AttachSignal(c)
		ms = append(ms, m)
	}
	p.a, p.b = ms[0], ms[1]
	p.a.SetNeighbors([]ident.Peer{p.b.ID()})
	p.b.SetNeighbors([]ident.Peer{p.a.ID()})
	up := make(chan struct{}, 2)
	for _, m := range ms {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for {
				var ev rtc.Event
				select {
				case <-dctx.Done():
					return
				case ev = <-m.Events():
				}
				var to chan rtc.Event
				switch ev.Type {
				case rtc.EventUp:
					select {
					case up <- struct{}{}:
					default:
					}
				case rtc.EventSent, rtc.EventSendFailed:
					to = p.sent
				case rtc.EventTransfer:
					to = p.recv
				}
				if to != nil {
					select {
					case to <- ev:
					case <-dctx.Done():
						return
					}
				}
			}
		}()
	}
	if err := p.b.Send(p.a.ID(), []byte("hello")); err != nil {
		return err
	}
	timeout := time.After(20 * time.Second)
	for range 2 {
		select {
		case <-up:
		case <-timeout:
			return errors.New("no data channel within 20s")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// transfer sends data from a to b; it returns when b held it, hash
// checked by rtc, after also waiting for a's report of the receiver's
// result (so that transfers do not overlap). The received bytes are
// hashed again here, outside the time.
func (p *rtcPair) transfer(ctx context.Context, data []byte, sum [32]byte) (time.Time, error) {
	h, err := p.a.SendTransfer(p.b.ID(), nil, data, [32]byte{}, p.task)
	if err != nil {
		return time.Time{}, err
	}
	var at time.Time
	var got []byte
	for acked := false; got == nil || !acked; {
		select {
		case ev := <-p.recv:
			at, got = time.Now(), ev.Data
			if got == nil {
				got = []byte{}
			}
		case ev := <-p.sent:
			if ev.Handle != h {
				continue
			}
			if ev.Type == rtc.EventSendFailed {
				return at, ev.Err
			}
			acked = true
		case <-ctx.Done():
			return at, ctx.Err()
		}
	}
	if sha256.Sum256(got) != sum {
		return at, fmt.Errorf("received %d bytes, sha256 mismatch", len(got))
	}
	return at, nil
}

func (p *rtcPair) close() {
	if p.a != nil {
		p.a.Close()
	}
	if p.b != nil {
		p.b.Close()
	}
	p.stop()
	p.wg.Wait()
	for _, c := range p.clients {
		c.Close()
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if p.srv != nil && p.srv.Shutdown(sctx) == nil {
		<-p.srvDone
	}
}

// tcpPair is a loopback TCP connection.
type tcpPair struct {
	ln       net.Listener
	out, in  net.Conn
	received chan error
}

func newTCPPair() (*tcpPair, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &tcpPair{ln: ln}
	accepted := make(chan error, 1)
	go func() {
		var err error
		p.in, err = ln.Accept()
		accepted <- err
	}()
	if p.out, err = net.Dial("tcp", ln.Addr().String()); err == nil {
		err = <-accepted
	}
	if err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// transfer writes a header (size, SHA-256) and data; the receiver reads
// both, hashes the bytes and checks them.
func (p *tcpPair) transfer(ctx context.Context, data []byte, sum [32]byte) (time.Time, error) {
	if d, ok := ctx.Deadline(); ok {
		p.out.SetDeadline(d)
		p.in.SetDeadline(d)
	}
	type result struct {
		at  time.Time
		err error
	}
	got := make(chan result, 1)
	go func() {
		var hdr [40]byte
		if _, err := io.ReadFull(p.in, hdr[:]); err != nil {
			got <- result{err: err}
			return
		}
		buf := make([]byte, binary.BigEndian.Uint64(hdr[:8]))
		if _, err := io.ReadFull(p.in, buf); err != nil {
			got <- result{err: err}
			return
		}
		if s := sha256.Sum256(buf); !bytes.Equal(s[:], hdr[8:]) {
			got <- result{err: fmt.Errorf("received %d bytes, sha256 mismatch", len(buf))}
			return
		}
		got <- result{at: time.Now()}
	}()
	s := sha256.Sum256(data) // the sender hashes too, as rtc's SendTransfer does
	hdr := binary.BigEndian.AppendUint64(nil, uint64(len(data)))
	bufs := net.Buffers{append(hdr, s[:]...), data}
	if _, err := bufs.WriteTo(p.out); err != nil {
		return time.Time{}, err
	}
	r := <-got
	if r.err == nil && s != sum {
		r.err = errors.New("sha256 of the sent data changed")
	}
	return r.at, r.err
}

func (p *tcpPair) close() {
	for _, c := range []io.Closer{p.out, p.in, p.ln} {
		if c != nil {
			c.Close()
		}
	}
}
