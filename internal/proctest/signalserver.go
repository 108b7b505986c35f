package proctest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proc"
)

// serverStart bounds how long a signalling server may take to listen.
const serverStart = 20 * time.Second

// StartSignalServer runs cmd/signalserver (bin) with args and -addr
// 127.0.0.1:0 until the test ends and returns it once it listens, with
// the address it bound. The server picks its own port: a port found free
// by the test and then passed in can be taken by another process in
// between (peers of another test then register with the wrong server).
func StartSignalServer(t testing.TB, name, bin string, args []string) (*Proc, string) {
	t.Helper()
	return StartSignalServerAt(t, name, bin, args, "127.0.0.1:0")
}

// StartSignalServerAt is StartSignalServer on addr, for a server whose
// address must be known before it starts (one restarted at its old
// address, one its peers are told of in advance). A port picked free
// beforehand may be taken meanwhile: the server then exits ("address
// already in use") and the test fails at once, not later, when peers
// reach whatever holds the port.
func StartSignalServerAt(t testing.TB, name, bin string, args []string, addr string) (*Proc, string) {
	t.Helper()
	p := Start(t, name, bin, append(append([]string(nil), args...), "-addr", addr), nil)
	m, err := p.WaitLog(context.Background(), serverStart, proc.SignalServerListening)
	if err != nil {
		t.Fatalf("%v; its log ends %q", err, p.Tail(2000))
	}
	if m[1] != "http" {
		t.Fatalf("%s listens on %s://%s: the callers build http:// and ws:// URLs", name, m[1], m[2])
	}
	if !strings.HasSuffix(addr, ":0") && m[2] != addr {
		t.Fatalf("%s listens on %s, not %s", name, m[2], addr)
	}
	return p, m[2]
}
