package demo

import (
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// statuses returns peers reporting exactly their correct neighbour sets.
func statuses(t *testing.T, n, spaces int) ([]netpeer.Status, []ident.Peer) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	ids := make([]ident.Peer, n)
	for i := range ids {
		for j := range ids[i] {
			ids[i][j] = byte(rng.IntN(256))
		}
	}
	want := overlay.ExpectedTables(ids, spaces)
	sts := make([]netpeer.Status, n)
	for i, id := range ids {
		sts[i].ID = hex.EncodeToString(id[:])
		for _, nb := range want[id].Neighbors() {
			sts[i].Neighbors = append(sts[i].Neighbors, hex.EncodeToString(nb[:]))
		}
		slices.Sort(sts[i].Neighbors)
	}
	return sts, ids
}

func TestCorrectnessIsOneOnlyForTheExpectedSets(t *testing.T) {
	sts, _ := statuses(t, 8, 3)
	c, others, err := correctness(sts, 3)
	if err != nil || c != 1 || others != 0 {
		t.Fatalf("correct overlay: correctness %v (%d others), %v; want 1", c, others, err)
	}
	// A member the demo does not run (a browser) counts: the peers'
	// sets are judged against the overlay with it in.
	c, others, err = correctness(sts[1:], 3)
	if err != nil || others != 1 || c != 1 {
		t.Fatalf("with an outside member: correctness %v (%d others), %v; want 1 with 1 other", c, others, err)
	}
	// One missing neighbour and one wrong extra: below 1.
	sts[0].Neighbors = sts[0].Neighbors[1:]
	sts[1].Neighbors = append(sts[1].Neighbors, sts[1].ID)
	c, _, err = correctness(sts, 3)
	if err != nil || c >= 1 || c <= 0.8 {
		t.Fatalf("damaged overlay: correctness %v, %v; want a little under 1", c, err)
	}
	sts[2].ID = "zz"
	if _, _, err := correctness(sts, 3); err == nil {
		t.Fatal("malformed ID accepted")
	}
}

func TestLineNeverRoundsUpToCorrect(t *testing.T) {
	r := Result{Peers: 8, AccMean: 0.90174, Correctness: 0.9996, BytesMoved: 45_600_000}
	if got, want := r.Line(), "demo peers=8 acc_mean=0.9017 correctness=0.999 mb_per_peer=5.7"; got != want {
		t.Fatalf("Line() = %q, want %q", got, want)
	}
	r.Correctness = 1
	if got, want := r.Line(), "demo peers=8 acc_mean=0.9017 correctness=1.000 mb_per_peer=5.7"; got != want {
		t.Fatalf("Line() = %q, want %q", got, want)
	}
}

func TestSummarizeCountsOnlyEvaluatedPeers(t *testing.T) {
	sts := []netpeer.Status{
		{Learn: &netpeer.LearnStatus{Evals: 1, Accuracy: 0.8}},
		{Learn: &netpeer.LearnStatus{Evals: 2, Accuracy: 0.6}},
		{Learn: &netpeer.LearnStatus{Evals: 0, Accuracy: 0}},
		{},
	}
	sts[0].RTC.BytesOut, sts[3].RTC.BytesOut = 100, 23
	s := summarize(time.Second, sts)
	if s.evaluated != 2 || s.accMean != 0.7 || s.accMin != 0.6 || s.accMax != 0.8 || s.bytes != 123 {
		t.Fatalf("summarize = %+v", s)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Peers = 1
	if _, err := Run(t.Context(), cfg); !errors.Is(err, ErrConfig) {
		t.Fatalf("Run(1 peer) = %v, want ErrConfig", err)
	}
}
