package proctest

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestTail(t *testing.T) {
	if got := Tail([]byte("abcdef"), 3); got != "...def" {
		t.Fatalf("Tail = %q", got)
	}
	if got := Tail([]byte("ab"), 3); got != "ab" {
		t.Fatalf("Tail = %q", got)
	}
}

func TestFreeAddr(t *testing.T) {
	addr := FreeAddr(t)
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("FreeAddr = %q", addr)
	}
}

func TestStartLinesAndStop(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	lines := make(chan string, 1)
	p := Start(t, "sh", sh, []string{"-c", "echo status=http://x id=ab; exec sleep 30"}, lines)
	select {
	case l := <-lines:
		if l != "status=http://x id=ab" {
			t.Fatalf("line %q", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no line")
	}
	p.Stop(t)
	select {
	case <-p.Done():
	default:
		t.Fatal("Stop returned before the process exited")
	}
}

func TestStartPeerReadsFirstLine(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	p := StartPeer(t, sh, "peer", []string{"-c", "echo listening status=http://127.0.0.1:1/status id=abcd; exec sleep 30"})
	if p.Status != "http://127.0.0.1:1/status" || p.ID != "abcd" {
		t.Fatalf("Status %q, ID %q", p.Status, p.ID)
	}
	p.Kill()
}

func TestBinaryBuildsOncePerNameWithTags(t *testing.T) {
	defer RemoveBinaries()
	plain := Binary(t, "hello", "./testdata/hello")
	loud := Binary(t, "hello-loud", "./testdata/hello", "loud")
	if again := Binary(t, "hello", "./testdata/hello", "loud"); again != plain {
		t.Fatalf("second Binary of one name: %q, want the first build %q", again, plain)
	}
	for bin, want := range map[string]string{plain: "plain", loud: "loud"} {
		lines := make(chan string, 1)
		StartEnv(t, want, bin, nil, []string{"HELLO=there"}, lines)
		select {
		case l := <-lines:
			if l != want+" there" {
				t.Fatalf("%s printed %q, want %q", bin, l, want+" there")
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s printed nothing", bin)
		}
	}
}

func TestGetJSON(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/status" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"state":"member"}`))
	}))
	defer srv.Close()
	var st struct{ State string }
	if err := GetJSON(srv.URL+"/status", &st); err != nil || st.State != "member" {
		t.Fatalf("GetJSON: %+v, %v", st, err)
	}
	if err := GetJSON(srv.URL+"/nothing", &st); err == nil {
		t.Fatal("GetJSON of a 404 returned no error")
	}
}
