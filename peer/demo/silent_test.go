package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/peer/netpeer"
)

// silentPeer is a status address that accepts connections and never
// answers, as a SIGSTOPped peer's (the kernel still completes the
// handshake).
func silentPeer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return "http://" + ln.Addr().String() + "/status"
}

// statusPeers serves sts as peers' /status; those from answering on are
// silent.
func statusPeers(t *testing.T, sts []netpeer.Status, answering int) []*child {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	logDir := t.TempDir()
	var peers []*child
	for i := range sts {
		// A running child, so watch sees a live peer; only its /status is served here.
		p, err := startChild("peer"+string(rune('0'+i)), logDir, sleep, "60")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Kill)
		p.id = sts[i].ID
		if i < answering {
			st := sts[i]
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				json.NewEncoder(w).Encode(st)
			}))
			t.Cleanup(srv.Close)
			p.status = srv.URL + "/status"
		} else {
			p.status = silentPeer(t)
		}
		peers = append(peers, p)
	}
	return peers
}

// One silent peer costs one timeout per poll, not one per peer, and the
// others' answers come back.
func TestPollStatusesSkipsOnlyTheSilentPeer(t *testing.T) {
	sts, _ := statuses(t, 4, 3)
	peers := statusPeers(t, sts, 3)
	client := &http.Client{Timeout: 300 * time.Millisecond}
	start := time.Now()
	got, silent := pollStatuses(context.Background(), client, peers)
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("poll took %v with one silent peer", el)
	}
	if len(got) != 3 || len(silent) != 1 || silent[0].Name != "peer3" {
		t.Fatalf("got %d statuses, %d silent; want 3 and peer3", len(got), len(silent))
	}
	for i, s := range got {
		if s.ID != sts[i].ID {
			t.Errorf("status %d is %s, want %s", i, s.ID[:8], sts[i].ID[:8])
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// While a peer is silent the live table keeps printing rows for the
// others, naming the silent one, with the correctness of the answering
// peers' neighbour sets.
func TestWatchKeepsReportingWhileAPeerIsSilent(t *testing.T) {
	sts, _ := statuses(t, 4, 3)
	for i := range sts {
		sts[i].Learn = &netpeer.LearnStatus{Accuracy: 0.5, Evals: 1}
	}
	peers := statusPeers(t, sts, 3) // peer3 is silent; the others still name it
	var out syncBuffer
	var logs []string
	var lmu sync.Mutex
	cfg := Config{
		Peers: 4, Spaces: 3, Target: 0.9, Limit: time.Minute, Every: 100 * time.Millisecond,
		OutDir: t.TempDir(), Stdout: &out,
		Logf: func(format string, args ...any) {
			lmu.Lock()
			defer lmu.Unlock()
			logs = append(logs, format)
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 7*time.Second) // polls wait out watch's 2 s timeout
	defer cancel()
	if _, err := watch(ctx, cfg, peers); err != nil {
		t.Fatal(err)
	}
	var rows int
	for _, l := range strings.Split(out.String(), "\n") {
		f := strings.Fields(l)
		if len(f) == 10 && f[4] == "3/4" && f[5] == "1.000" && f[7] == "0" && f[8] == "silent:" && f[9] == "peer3" {
			rows++
		}
	}
	if rows < 2 {
		t.Fatalf("%d rows with 3 of 4 peers and peer3 silent in:\n%s", rows, out.String())
	}
	lmu.Lock()
	defer lmu.Unlock()
	if len(logs) != 1 {
		t.Errorf("logged %d times about the silent peer, want once: %q", len(logs), logs)
	}
}
