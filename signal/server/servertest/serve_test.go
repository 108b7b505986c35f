package servertest

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
)

// Serve serves on loopback until cleanup, and cleanup closes the port.
func TestServeUntilCleanup(t *testing.T) {
	var addr string
	t.Run("serve", func(t *testing.T) {
		mux := http.NewServeMux()
		mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "up") })
		addr, _ = Serve(t, &http.Server{Handler: mux, ReadHeaderTimeout: time.Second})
		if host, _, _ := net.SplitHostPort(addr); host != "127.0.0.1" {
			t.Fatalf("addr %s is not loopback", addr)
		}
		c := http.Client{Timeout: 3 * time.Second}
		resp, err := c.Get("http://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "up" {
			t.Fatalf("body %q", body)
		}
	})
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		conn.Close()
		t.Fatalf("%s still accepts connections after cleanup", addr)
	}
}

// Task names the spec and applies mutate before taking the ID.
// stop takes the server away at once, and cleanup's second stop is a
// no-op.
func TestStopMidTest(t *testing.T) {
	addr, stop := Serve(t, &http.Server{Handler: http.NotFoundHandler(), ReadHeaderTimeout: time.Second})
	stop()
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		conn.Close()
		t.Fatalf("%s still accepts connections after stop", addr)
	}
}

func TestTaskNamesAndMutates(t *testing.T) {
	plain, plainID := Task(t, "a")
	bounded, boundedID := Task(t, "a", func(s *task.Spec) { s.MaxRounds = plain.MaxRounds + 7 })
	if plain.Name != "a" || bounded.MaxRounds != plain.MaxRounds+7 {
		t.Fatalf("specs %+v, %+v", plain, bounded)
	}
	if plainID == boundedID {
		t.Fatal("mutated spec has the same ID")
	}
	if want, _ := bounded.ID(); boundedID != want {
		t.Fatalf("ID %v, spec's %v", boundedID, want)
	}
}
