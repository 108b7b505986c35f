package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

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
