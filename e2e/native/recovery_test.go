package native

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
)

// Recovery with separate processes: a peer handed only contacts that
// never answer registers again and joins the live peers that came since;
// a peer refused by a busy server waits, says why, and gets in.

// taskIDOf reads a task spec file's ID.
func taskIDOf(t *testing.T, file string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var s task.Spec
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	id, err := s.ID()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestE2ENeverLinkedPeerRegistersAgain: silent fakes (registered with the
// server, never answering) are the only contacts peer P gets, so its join
// goes nowhere. The server restarts (the fakes are gone) and two live
// peers form an overlay: P, which never had a neighbour, registers again
// by itself, gets them as contacts and is a member within 30 s.
func TestE2ENeverLinkedPeerRegistersAgain(t *testing.T) {
	parallel(t)
	peerBin, sigBin := binaries(t)
	tf := taskFile(t, "e2e-recovery", 2)
	tid := taskIDOf(t, tf)
	addr := proctest.FreeAddr(t)
	url := "ws://" + addr + "/signal"
	srv := startServerAt(t, sigBin, "signalserver", tf, addr)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for i := range 3 { // the silent fakes: registered, never answering
		seed := make([]byte, 32)
		seed[0], seed[1] = 0xfa, byte(i)
		id, err := signal.IdentityFromSeed(seed)
		if err != nil {
			t.Fatal(err)
		}
		c, err := signal.Dial(ctx, url, id, tid, signal.DefaultClientConfig())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	p := startPeer(t, peerBin, "stranded", url, []string{"-task", tf})
	// "Goes nowhere" is a claim about time passing: 3 s, past the
	// contacts' connection attempts, it is still joining, unconnected.
	time.Sleep(3 * time.Second)
	if st, err := fetchStatus(p.Status); err != nil || st.State != "joining" || len(st.Connections) != 0 {
		t.Fatalf("stranded peer: %+v, %v (want joining, no connections)", st, err)
	}
	// The server restarts: the fakes are gone; live peers come.
	srv.Stop(t)
	startServerAt(t, sigBin, "signalserver2", tf, addr)
	live := []*proc{startPeer(t, peerBin, "live0", url, []string{"-task", tf})}
	pollUntil(t, 20*time.Second, 100*time.Millisecond, func() (bool, string) { // the first live peer is the overlay
		st, err := fetchStatus(live[0].Status)
		return err == nil && st.State == "member", fmt.Sprintf("live0: %s, %v", st.State, err)
	})
	live = append(live, startPeer(t, peerBin, "live1", url, []string{"-task", tf}))
	waitCorrect(t, live, 2, 20*time.Second)
	t0 := time.Now()
	all := append(live, p)
	sts := waitCorrect(t, all, 2, 30*time.Second)
	t.Logf("the stranded peer is a member %v after live peers were available (rebootstraps %d)", time.Since(t0).Round(time.Millisecond), sts[2].Rebootstraps)
	if sts[2].Rebootstraps < 1 {
		t.Errorf("joined without registering again?")
	}
}

// TestE2EBusyServerIsRetried: while the server's upgrades answer 503 (a
// proxy in front of a real server, as when its handshake slots are
// taken), the peer says why on its status page and retries; once the
// server takes it, it runs.
func TestE2EBusyServerIsRetried(t *testing.T) {
	parallel(t)
	peerBin, sigBin := binaries(t)
	tf := taskFile(t, "e2e-busy", 2)
	_, addr := proctest.StartSignalServer(t, "signalserver", sigBin, serverArgs(tf))
	// The front: 503 until busy is cleared, then a TCP pass-through.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	busy := make(chan struct{})
	go serveBusyFront(ln, addr, busy)
	t.Cleanup(func() { ln.Close() })
	p := startPeer(t, peerBin, "patient", "ws://"+ln.Addr().String()+"/signal", []string{"-task", tf})
	var st Status
	pollUntil(t, 20*time.Second, 100*time.Millisecond, func() (bool, string) {
		st, err = fetchStatus(p.Status)
		return err == nil && st.Waiting != "", fmt.Sprintf("no waiting reason on the status: %+v, %v", st, err)
	})
	t.Logf("waiting: %q", st.Waiting)
	if want := "The coordination server is busy"; len(st.Waiting) < len(want) || st.Waiting[:len(want)] != want {
		t.Errorf("waiting %q, want it to start %q", st.Waiting, want)
	}
	close(busy)
	pollUntil(t, 60*time.Second, 200*time.Millisecond, func() (bool, string) {
		st, err = fetchStatus(p.Status)
		return err == nil && st.State == "member" && st.Waiting == "", fmt.Sprintf("not running after the server freed up: %+v, %v", st, err)
	})
}

// serveBusyFront answers every HTTP request on ln with 503 until busy is
// closed, then passes connections through to addr.
func serveBusyFront(ln net.Listener, addr string, busy <-chan struct{}) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		select {
		case <-busy:
			go pipe(c, addr)
		default:
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				buf := make([]byte, 4096)
				c.Read(buf) // the upgrade request (fits: a few hundred bytes)
				c.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 27\r\nConnection: close\r\n\r\ntoo many pending handshakes"))
			}()
		}
	}
}

func pipe(c net.Conn, addr string) {
	defer c.Close()
	s, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer s.Close()
	done := make(chan struct{}, 2)
	go func() { copyConn(s, c); done <- struct{}{} }()
	go func() { copyConn(c, s); done <- struct{}{} }()
	<-done
}

func copyConn(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
