package proctest

import (
	"context"
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
func StartSignalServer(t testing.TB, name, bin string, args []string, lines chan<- string) (*Proc, string) {
	t.Helper()
	p := Start(t, name, bin, append(append([]string(nil), args...), "-addr", "127.0.0.1:0"), lines)
	m, err := p.WaitLog(context.Background(), serverStart, proc.SignalServerListening)
	if err != nil {
		t.Fatalf("%v; its log ends %q", err, p.Tail(2000))
	}
	return p, m[2]
}
