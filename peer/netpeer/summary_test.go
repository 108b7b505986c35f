package netpeer

import (
	"crypto/ed25519"
	"fmt"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal/server"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
)

// TestSummariesAndTheServerStopped (issue #24 item 7): three peers that
// share their progress make the server's view of the task (all three
// reporting, a median accuracy, samples counted); then the server stops,
// and the peers go on training and exchanging models as before, their
// summaries failing and counted as failed.
func TestSummariesAndTheServerStopped(t *testing.T) {
	spec, tid := servertest.Task(t, "netpeer-summaries", func(s *task.Spec) {
		s.PeriodMS, s.LocalEpochs, s.LocalSteps, s.Aggregator = 500, 0, 20, "fedlay"
	})
	cfg := server.DefaultConfig()
	cfg.Tasks = []task.Spec{spec}
	cfg.Admission.Key = ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	cfg.SummaryInterval = 500 * time.Millisecond
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr, stop := servertest.Serve(t, srv)

	log := &testLog{}
	test := synthetic(500, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 7)
	const n = 3
	peers := runPeers(t, n, 0, log, func(i int) Config {
		pc := testPeerConfig(t, servertest.SignalURL(addr), tid, 300+i, log)
		pc.ShareProgress, pc.SummaryEvery = true, time.Second
		pc.Learn = classLearner([]int{(3 * i) % 10, (3*i + 1) % 10, (3*i + 2) % 10}, 300, uint64(i), test, pc.Tick)
		return pc
	})

	pollUntil(t, 90*time.Second, 200*time.Millisecond, func() (bool, string) {
		pt := srv.Stats().Progress[tid]
		return pt.Reporting == n && pt.Accuracy != nil && pt.Samples > 0, fmt.Sprintf("server sees %+v", pt)
	})
	pt := srv.Stats().Progress[tid]
	t.Logf("server's view: %d reporting, median accuracy %.3f, %d samples, median round %d", pt.Reporting, *pt.Accuracy, pt.Samples, pt.Round)

	rounds := make([]int, n)
	received := make([]uint64, n)
	for i, p := range peers {
		s := p.Status()
		rounds[i], received[i] = s.Learn.Rounds, s.Learn.ModelsReceived
		if s.Summaries == nil || s.Summaries.Sent == 0 {
			t.Fatalf("peer %d: summaries %+v", i, s.Summaries)
		}
	}
	stop()
	pollUntil(t, 90*time.Second, 200*time.Millisecond, func() (bool, string) {
		var why []string
		for i, p := range peers {
			s := p.Status()
			if s.State != "member" || s.Learn.Rounds < rounds[i]+3 || s.Learn.ModelsReceived <= received[i] || s.Summaries.Failed == 0 {
				why = append(why, fmt.Sprintf("peer %d: %s, rounds %d (from %d), models received %d (from %d), summaries %+v",
					i, s.State, s.Learn.Rounds, rounds[i], s.Learn.ModelsReceived, received[i], *s.Summaries))
			}
		}
		return len(why) == 0, fmt.Sprint(why)
	})
}
