package native

import (
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The shared harness of the package's tests, on internal/proctest: the
// binaries, a server, peers, their /status, and bounded waits for what
// a test asserts.

// Status is what a peer's /status page says.
type (
	Status   = netpeer.Status
	Offender = netpeer.Offender
)

// proc is a started `peerlearn peer`.
type proc = proctest.Peer

// concurrent is how many of the package's parallel tests run at once
// unless -parallel says otherwise (go test's default is GOMAXPROCS).
// Their peers mostly wait on periods and timeouts: on 2 loaded cores
// (load 7-10 from other work) the package took 178-190 s at 2 at once
// and 145 s at 3, each test's time within a few seconds of its time
// alone, every test passing.
const concurrent = 3

func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		flag.Set("test.parallel", strconv.Itoa(concurrent))
	}
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

// binaries returns cmd/peerlearn and cmd/signalserver, built once per
// run; the test skips with -short.
func binaries(t *testing.T) (peerlearn, signalserver string) {
	t.Helper()
	return proctest.Binary(t, "peerlearn", "../../cmd/peerlearn"), proctest.Binary(t, "signalserver", "../../cmd/signalserver")
}

// parallel marks a test that mostly waits on its peers' periods and
// timeouts: it runs beside the package's other such tests, concurrent
// at once (or as many as -parallel says).
func parallel(t *testing.T) {
	t.Parallel()
}

// startServer runs cmd/signalserver hosting task file tf on a loopback
// port it picks (servers of one task file share its admission key) and
// returns it once it listens, with its websocket URL.
func startServer(t *testing.T, sigBin, name, tf string) (*proctest.Proc, string) {
	t.Helper()
	srv, addr := proctest.StartSignalServer(t, name, sigBin, serverArgs(tf))
	return srv, "ws://" + addr + "/signal"
}

// startServerAt is startServer on a given address (a restarted server,
// a second one whose address its peers know before it is up).
func startServerAt(t *testing.T, sigBin, name, tf, addr string) *proctest.Proc {
	t.Helper()
	srv, _ := proctest.StartSignalServerAt(t, name, sigBin, serverArgs(tf), addr)
	return srv
}

// serverArgs are the signalling server's flags, -addr aside, for task
// file tf.
func serverArgs(tf string) []string {
	return []string{"-no-web", "-task", tf, "-admission-key", admissionKeyFile(tf)}
}

// admissionKeyFile is where the signalling servers of a test that share
// task file tf keep their admission key: servers of one task (and a
// restarted server) must sign with the same key.
func admissionKeyFile(tf string) string { return filepath.Join(filepath.Dir(tf), "admission.key") }

// startPeer starts `peerlearn peer` (overlay only unless extra says
// -learn) and waits for its first line; env (NAME=value) goes to its
// environment.
func startPeer(t *testing.T, bin, name, sigURL string, extra []string, env ...string) *proc {
	t.Helper()
	args := append([]string{"peer", "-signal", sigURL, "-loopback", "-status", "127.0.0.1:0", "-every", "0", "-v", "-learn=false"}, extra...)
	return proctest.StartPeer(t, bin, name, args, env...)
}

// startPeers starts n peers named prefix0, prefix1, ..., peer i with
// args(i) after the common ones.
func startPeers(t *testing.T, bin, prefix, url string, n int, args func(i int) []string) []*proc {
	t.Helper()
	peers := make([]*proc, n)
	for i := range peers {
		peers[i] = startPeer(t, bin, fmt.Sprintf("%s%d", prefix, i), url, args(i))
	}
	return peers
}

// stopAll sends every peer SIGTERM at once and waits until all left
// (each must leave on it, proctest.Proc.Stop): one at a time, a swarm's
// graceful leaves took a second or more each.
func stopAll(t *testing.T, peers []*proc) {
	t.Helper()
	var wg sync.WaitGroup
	for _, p := range peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Stop(t)
		}()
	}
	wg.Wait()
}

func fetchStatus(url string) (Status, error) {
	var s Status
	return s, proctest.GetJSON(url, &s)
}

// statuses reads every peer's /status; the first error is returned.
func statuses(peers []*proc) ([]Status, error) {
	sts := make([]Status, len(peers))
	for i, p := range peers {
		var err error
		if sts[i], err = fetchStatus(p.Status); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	return sts, nil
}

// pollUntil calls cond every poll until it holds and returns how long
// that took, or fails the test with cond's last reason after bound
// (proctest.WaitUntil). A process tells what it does only on its
// /status page: the tests poll it, and end as soon as it shows what
// they assert. Bounds are generous: other work may load the machine.
func pollUntil(t testing.TB, bound, poll time.Duration, cond func() (ok bool, why string)) time.Duration {
	t.Helper()
	return proctest.WaitUntil(t, "condition", bound, poll, func() string {
		switch ok, why := cond(); {
		case ok:
			return ""
		case why == "":
			return "not yet" // WaitUntil reads "" as done
		default:
			return why
		}
	})
}

// idsOf decodes the peers' hex IDs.
func idsOf(t testing.TB, sts []Status) []ident.Peer {
	t.Helper()
	ids := make([]ident.Peer, len(sts))
	for i, s := range sts {
		b, err := hex.DecodeString(s.ID)
		if err != nil || len(b) != len(ids[i]) {
			t.Fatalf("status ID %q", s.ID)
		}
		copy(ids[i][:], b)
	}
	return ids
}

// waitNeighbours polls until the peers' neighbour sets are the correct
// ones for exactly these peers (connections not checked).
func waitNeighbours(t *testing.T, peers []*proc, spaces int, bound time.Duration) time.Duration {
	t.Helper()
	return pollUntil(t, bound, 250*time.Millisecond, func() (bool, string) {
		sts, err := statuses(peers)
		if err != nil {
			return false, err.Error()
		}
		why := netpeer.WrongNeighbours(sts, spaces)
		return why == "", "neighbour sets not correct: " + why
	})
}

// waitCorrect polls the peers' status until their neighbour sets are the
// correct ones for exactly these peers and their open connections equal
// their neighbours; it returns the statuses.
func waitCorrect(t *testing.T, peers []*proc, spaces int, bound time.Duration) []Status {
	t.Helper()
	var sts []Status
	pollUntil(t, bound, 250*time.Millisecond, func() (bool, string) {
		var err error
		if sts, err = statuses(peers); err != nil {
			return false, err.Error()
		}
		if why := netpeer.WrongNeighbours(sts, spaces); why != "" {
			return false, "overlay not correct: " + why
		}
		for _, s := range sts {
			if !slices.Equal(s.Connections, s.Neighbors) {
				return false, fmt.Sprintf("%s: %d connections for %d neighbours", s.ID[:8], len(s.Connections), len(s.Neighbors))
			}
		}
		return true, ""
	})
	return sts
}

// waitLinked polls until the peers' neighbour sets are the correct ones
// for exactly these peers and each has an open connection to every
// neighbour. Other connections are let be: a peer that registered
// again opened some to contacts that are not its neighbours, closed
// after rtc's 10 s grace (waitCorrect waits for that too).
func waitLinked(t *testing.T, peers []*proc, spaces int, bound time.Duration) []Status {
	t.Helper()
	var sts []Status
	pollUntil(t, bound, 250*time.Millisecond, func() (bool, string) {
		var err error
		if sts, err = statuses(peers); err != nil {
			return false, err.Error()
		}
		if why := netpeer.WrongNeighbours(sts, spaces); why != "" {
			return false, "overlay not correct: " + why
		}
		for _, s := range sts {
			for _, nb := range s.Neighbors {
				if !slices.Contains(s.Connections, nb) {
					return false, fmt.Sprintf("%s: no connection to its neighbour %s", s.ID[:8], nb[:8])
				}
			}
		}
		return true, ""
	})
	return sts
}

// victimNeedingNewLinks picks a peer whose failure makes two others
// neighbours that are not neighbours now (so not connected: the repair
// needs a new connection, signalled through the overlay).
func victimNeedingNewLinks(t *testing.T, sts []Status, spaces int) int {
	t.Helper()
	ids := idsOf(t, sts)
	place := netpeer.PlacementOf(sts)
	now := overlay.ExpectedTablesAt(ids, spaces, place)
	for k := range ids {
		rest := slices.Delete(slices.Clone(ids), k, k+1)
		for id, tb := range overlay.ExpectedTablesAt(rest, spaces, place) {
			for _, nb := range tb.Neighbors() {
				if !slices.Contains(now[id].Neighbors(), nb) {
					return k
				}
			}
		}
	}
	t.Fatal("no peer's failure needs a new link")
	return 0
}

// taskFile writes a task spec whose overlay has L = spaces: the server
// hosts it (-task) and the peers name it (-task), since L is the task's.
func taskFile(t *testing.T, name string, spaces int) string {
	t.Helper()
	s := task.DefaultSpec()
	s.Name, s.Spaces = name, spaces
	b, err := s.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return writeSpec(t, string(b))
}

// writeSpec writes a task spec (JSON) to a file of the test's.
func writeSpec(t *testing.T, spec string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "task.json")
	if err := os.WriteFile(f, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// dataDir returns the directory with the MNIST files ($PEERLEARN_DATA, else
// the checkout's .data), or skips the test.
func dataDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PEERLEARN_DATA")
	if dir == "" {
		dir, _ = filepath.Abs("../../.data")
	}
	if _, err := os.Stat(filepath.Join(dir, "mnist")); err != nil {
		t.Skipf("no MNIST under %s (make data)", dir)
	}
	return dir
}
