package proctest

import (
	"net"
	"testing"
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
