package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proc"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
)

// TestMain runs main itself when re-executed by TestServeAndSIGTERM.
func TestMain(m *testing.M) {
	if os.Getenv("SIGNALSERVER_TEST_MAIN") == "1" {
		os.Args = append([]string{"signalserver"}, strings.Fields(os.Getenv("SIGNALSERVER_TEST_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The command serves a task from a file on loopback, on the port it
// bound for -addr 127.0.0.1:0 and logged (the line
// proc.SignalServerListening reads), registers a peer, and exits cleanly
// on SIGTERM.
func TestServeAndSIGTERM(t *testing.T) {
	spec, tid := servertest.Task(t, "cmd-test")
	canon, err := spec.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tasks.json")
	if err := os.WriteFile(file, []byte("["+string(canon)+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SIGNALSERVER_TEST_MAIN=1",
		"SIGNALSERVER_TEST_ARGS=-addr 127.0.0.1:0 -no-web -task "+file+" -ice-servers stun:127.0.0.1:3478 -turn -turn-addr 127.0.0.1:0 -turn-allow-peer 127.0.0.0/8")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		close(lines)
	}()
	waitFor := func(what string) string {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("exited before %q", what)
				}
				if strings.Contains(l, what) {
					return l
				}
			case <-ctx.Done():
				t.Fatalf("no %q in the log", what)
			}
		}
	}
	m := proc.SignalServerListening.FindStringSubmatch(waitFor("listening on"))
	if m == nil || m[1] != "http" || strings.HasSuffix(m[2], ":0") {
		t.Fatalf("listening line: %q", m)
	}
	addr := m[2]
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok\n" {
		t.Fatalf("healthz %d %q", resp.StatusCode, body)
	}
	id, _ := signal.NewIdentity(nil)
	c, err := signal.Dial(ctx, "ws://"+addr+"/signal", id, tid, signal.DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	w := c.Welcome()
	if w.Task.Name != "cmd-test" || len(w.ICEServers) != 2 || w.ICEServers[1].Username == "" {
		t.Fatalf("welcome %+v", w)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor("shutting down")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	select {
	case <-c.Done():
	case <-time.After(3 * time.Second):
		t.Fatal("client not closed by the shutdown")
	}
}

func TestLoadTasks(t *testing.T) {
	specs, err := loadTasks(nil, nil)
	if err != nil || len(specs) != 1 || specs[0].Name != "mnist-fedlay" {
		t.Fatalf("default: %v %v", specs, err)
	}
	if _, err := loadTasks([]string{filepath.Join(t.TempDir(), "missing.json")}, nil); err == nil {
		t.Fatal("missing file accepted")
	}
	if _, err := loadTasks(nil, []string{`{"version":1,"name":"x"}`}); err == nil {
		t.Fatal("invalid inline spec accepted")
	}
	if err := run([]string{"-max-peers", "0", "-addr", "127.0.0.1:0"}); err == nil {
		t.Fatal("invalid config accepted")
	}
	if err := run([]string{"extra"}); err == nil {
		t.Fatal("stray argument accepted")
	}
}
