package main

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pion/stun/v4"

	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
)

// With -turn and no -ice-servers the welcome carries a stun: URL of the
// embedded server's address before its turn: URL: peers behind NATs find
// their public address without any extra flag.
func TestTURNHandsOutSTUNByDefault(t *testing.T) {
	_, tid := servertest.Task(t, "mnist-fedlay") // the default task
	addr := proctest.FreeAddr(t)
	turnAddr := proctest.FreeAddr(t) // a free TCP port; the UDP one is very likely free too
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SIGNALSERVER_TEST_MAIN=1",
		"SIGNALSERVER_TEST_ARGS=-addr "+addr+" -no-web -turn -turn-addr "+turnAddr)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.Contains(sc.Text(), "listening on") {
	}
	go func() {
		for sc.Scan() {
		}
	}()
	id, _ := signal.NewIdentity(nil)
	c, err := signal.Dial(ctx, "ws://"+addr+"/signal", id, tid, signal.DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ice := c.Welcome().ICEServers
	if len(ice) != 2 || len(ice[0].URLs) != 1 || ice[0].URLs[0] != "stun:"+turnAddr ||
		!strings.HasPrefix(ice[1].URLs[0], "turn:"+turnAddr) {
		t.Fatalf("ICE servers %+v, want stun:%s then turn:%s", ice, turnAddr, turnAddr)
	}
}

// With the default flags (no -turn, no -ice-servers) the server answers
// STUN on the UDP twin of -addr and hands it out, and warns that no TURN
// is configured. Before, the welcome carried no ICE server at all, and
// two peers behind ordinary NATs gathered host candidates only.
func TestSTUNByDefault(t *testing.T) {
	_, tid := servertest.Task(t, "mnist-fedlay") // the default task
	addr := proctest.FreeAddr(t)                 // the UDP port of the same number is very likely free too
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SIGNALSERVER_TEST_MAIN=1", "SIGNALSERVER_TEST_ARGS=-addr "+addr+" -no-web")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(stderr)
	var log []string
	for sc.Scan() && !strings.Contains(sc.Text(), "listening on") {
		log = append(log, sc.Text())
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if l := strings.Join(log, "\n"); !strings.Contains(l, "warning: no TURN server") || !strings.Contains(l, "STUN on udp "+addr) {
		t.Fatalf("start-up log lacks the STUN line or the TURN warning:\n%s", l)
	}
	id, _ := signal.NewIdentity(nil)
	c, err := signal.Dial(ctx, "ws://"+addr+"/signal", id, tid, signal.DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ice := c.Welcome().ICEServers
	if len(ice) != 1 || len(ice[0].URLs) != 1 || ice[0].URLs[0] != "stun:"+addr {
		t.Fatalf("ICE servers %+v, want stun:%s", ice, addr)
	}
	// And it answers.
	conn, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(3 * time.Second))
	req := stun.MustBuild(stun.TransactionID, stun.BindingRequest)
	if _, err := conn.Write(req.Raw); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1500)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("no STUN answer: %v", err)
	}
	res := &stun.Message{Raw: buf[:n]}
	var mapped stun.XORMappedAddress
	if err := res.Decode(); err != nil || res.Type != stun.BindingSuccess || mapped.GetFrom(res) != nil || mapped.Port != conn.LocalAddr().(*net.UDPAddr).Port {
		t.Fatalf("STUN answer %v (%v), mapped %v", res, err, mapped)
	}
}
