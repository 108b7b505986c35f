package proctest

import (
	"net"
	"testing"
	"time"
)

// FreeAddr returns a 127.0.0.1 address with a port that was free a
// moment ago.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// WaitTCP waits up to 10 s until addr accepts connections.
func WaitTCP(t testing.TB, addr string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never accepted: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
