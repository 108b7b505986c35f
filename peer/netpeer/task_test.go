package netpeer

import (
	"fmt"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
)

// Peers configured with the default L join a task whose spec says L = 3:
// they run the task's, and their overlay is the correct one for L = 3.
func TestPeersUseTheTasksSpaces(t *testing.T) {
	const spaces, n = 3, 4
	if DefaultConfig().Overlay.Spaces == spaces {
		t.Fatal("pick an L other than the default")
	}
	url, tid := startSignal(t, "netpeer-spaces", func(s *task.Spec) { s.Spaces = spaces })
	log := &testLog{}
	peers := runPeers(t, n, 0, log, func(i int) Config { return testPeerConfig(t, url, tid, 100+i, log) })
	pollUntil(t, 60*time.Second, 200*time.Millisecond, func() (bool, string) {
		sts := make([]Status, n)
		tables := true
		for i, p := range peers {
			sts[i] = p.Status()
			tables = tables && len(sts[i].Table) == spaces
		}
		diff := WrongNeighbours(sts, spaces)
		return tables && diff == "", fmt.Sprintf("tables of %d spaces: %v; overlay for L = %d: %s", spaces, tables, spaces, diff)
	})
}
