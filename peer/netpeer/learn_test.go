package netpeer

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/task"
)

// synthetic returns n samples of 10 well-separated classes (a random
// prototype per class plus noise), only of the given classes.
func synthetic(n int, classes []int, seed uint64) *data.Dataset {
	const f = 784
	proto := rand.New(rand.NewPCG(99, 99))
	protos := make([][]float32, 10)
	for c := range protos {
		protos[c] = make([]float32, f)
		for i := range protos[c] {
			protos[c][i] = proto.Float32()
		}
	}
	r := rand.New(rand.NewPCG(seed, 1))
	d := &data.Dataset{Name: "synthetic", Shape: [3]int{28, 28, 1}, Classes: 10, X: make([]float32, 0, n*f), Y: make([]int32, 0, n)}
	for range n {
		c := classes[r.IntN(len(classes))]
		for _, v := range protos[c] {
			d.X = append(d.X, v+0.3*float32(r.NormFloat64()))
		}
		d.Y = append(d.Y, int32(c))
	}
	return d
}

// TestPeersLearnTogether: for every method a real peer runs
// (RealMethods: each value of the spec's method that TaskEngine accepts),
// four in-process peers, each holding only three of the ten classes,
// train over the overlay (control as KindApp frames, models as chunked
// rtc transfers) until each one's model classifies at least three
// classes it never saw (accuracy togetherFloor on all ten: alone a peer
// tops out at 0.3, so its model took in others'), and each reports
// running that method. It asked 0.9 within 60 s (gossip 120 s): a rate,
// which a loaded machine stretched to 45 s; the methods' convergence on
// virtual time is methodsim's (TestGossipRun, TestDPSGDRunOnePeerExp,
// TestSelectionRun*, TestPlexusRunAccounting).
func TestPeersLearnTogether(t *testing.T) {
	if raceEnabled {
		t.Skip("CPU-bound training under the race detector starves the peers' loops (heartbeats time out)")
	}
	// Each method's swarm has its own server and mostly waits on its
	// periods (PENS and D-PSGD: 3 s): they run side by side, as many at
	// once as go test's -parallel allows.
	for k, m := range node.RealMethods() {
		t.Run(m, func(t *testing.T) {
			t.Parallel()
			learnTogether(t, m, "", 100+10*k)
		})
	}
}

// TestPeersLearnTogetherCompressed: the same with models in a codec
// (FedLay's MEP with the demo's 4-bit deltas, a method core with 8-bit
// ones): the peers still learn from each other's decoded copies, and
// what they put on the wire is a fraction of the float32 models.
func TestPeersLearnTogetherCompressed(t *testing.T) {
	if raceEnabled {
		t.Skip("CPU-bound training under the race detector starves the peers' loops (heartbeats time out)")
	}
	for k, mc := range [][2]string{{"fedlay", "delta-int4"}, {"dpsgd", "delta-int8"}} {
		m, codec := mc[0], mc[1]
		t.Run(m+"/"+codec, func(t *testing.T) {
			t.Parallel()
			learnTogether(t, m, codec, 200+10*k)
		})
	}
}

// togetherFloor is the accuracy on all ten classes that a peer holding
// three reaches only with its neighbours' models.
const togetherFloor = 0.6

// learnTogether runs the swarm; its peers' keys come from seeds
// seed..seed+3, distinct from the other swarms running beside it.
func learnTogether(t *testing.T, method, codec string, seed int) {
	url, tid := startSignal(t, "netpeer-learn-"+method, func(s *task.Spec) {
		s.PeriodMS, s.LocalEpochs, s.LocalSteps = 500, 0, 20
		s.Codec = codec
		if method != "fedlay" {
			s.Method, s.Aggregator, s.Init = method, "mean", task.Init{Mode: "common", Seed: 5}
		} else {
			// FedLay's own rule, not the robust default (clipped-fedlay):
			// this test is about the methods running and merging. With
			// three neighbours and three classes each, the robust rule
			// once clipped one honest peer by 97-100% every round and
			// left it at 0.386 (issue #13; the attack tests cover the
			// robust rule).
			s.Aggregator = "fedlay"
		}
		if method == "gossip" {
			// One SGD step per model received: Gossip Learning gives each
			// arriving model, merged with the own one at about half
			// weight, one small update on the local data (Ormandi et al.
			// 2013, one example per node), not 20 steps of momentum SGD.
			// With 20 steps on a peer's 3 classes of 10 the peers can
			// settle where each merge and the training after it undo
			// each other (two peers' training loss stuck near 0.1, their
			// parameters moving by about 1 a round, the other two at 0):
			// CI runs sat at 0.38-0.41 and 0.61-0.63 for 2 minutes, and
			// 3 of 5 runs here at 0.79-0.91 after 35-60 s. The core was
			// not at fault (ages, merge weights, no self-merge:
			// protocol/gossip's tests; the same cores and learners in
			// one process, with instant delivery, reach 1.0 every time;
			// issue #18). With one step three runs of three reached 1.0
			// within 15 s.
			s.LocalSteps = 1
		}
		if method == "pens" {
			// The PENS family's Random policy: a peer holding three
			// classes must meet the others' (PENS itself is the
			// rotated-cluster e2e test's).
			s.Selection = task.Selection{Policy: "random", K: 2}
		}
		if method == "plexus" {
			// T_agg is two periods: room for a sample's transfers and
			// trainings on this loaded machine.
			s.PeriodMS = 2000
		}
		if method == "dpsgd" || method == "pens" {
			// A round waits for every neighbour's model; the period only
			// bounds the wait for a failed one (transfers on this loaded
			// machine take longer than 500 ms at times).
			s.PeriodMS = 3000
		}
	})
	log := &testLog{}
	test := synthetic(1000, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 7)
	const n = 4
	peers := runPeers(t, n, 0, log, func(i int) Config {
		cfg := testPeerConfig(t, url, tid, seed+i, log)
		cfg.Learn = classLearner([]int{(3 * i) % 10, (3*i + 1) % 10, (3*i + 2) % 10}, 600, uint64(i), test, cfg.Tick)
		return cfg
	})
	// Generous: one model merged per push and period for gossip, and a
	// machine shared with other CPU-bound jobs.
	const bound = 120 * time.Second
	var accs []float64
	took := pollUntil(t, bound, 200*time.Millisecond, func() (bool, string) {
		done := true
		accs = accs[:0]
		for _, p := range peers {
			s := p.Status()
			if s.Learn == nil || s.Learn.Evals == 0 {
				done = false
				continue
			}
			accs = append(accs, s.Learn.Accuracy)
			done = done && s.Learn.Accuracy >= togetherFloor && s.Learn.ModelsReceived > 0 && s.Learn.Rounds >= 2
			if ms := s.Learn.Method; (ms == nil) != (method == "fedlay") || (ms != nil && ms.Method != method) {
				t.Fatalf("method %s: the peer reports %+v", method, ms)
			}
		}
		if !done {
			var why []string
			for _, p := range peers {
				if s := p.Status(); s.Learn != nil && s.Learn.Method != nil {
					why = append(why, fmt.Sprintf("%s: rounds %d, accuracy %.3f of round %d (%d evaluations), %+v",
						s.ID[:8], s.Learn.Rounds, s.Learn.Accuracy, s.Learn.EvalRound, s.Learn.Evals, *s.Learn.Method))
				}
			}
			return false, fmt.Sprintf("%s: accuracies %.3f; %v", method, accs, why)
		}
		return true, ""
	})
	t.Logf("%s: all %d peers above %.0f%% in %v: %.3f", method, n, 100*togetherFloor, took.Round(time.Millisecond), accs)
	for _, p := range peers {
		s := p.Status()
		// A model never fails verification between honest peers. MEP
		// messages from a peer that is briefly not a neighbour (a
		// heartbeat missed on a loaded machine) are dropped: logged.
		if s.Learn.ModelsRejected != 0 || s.RTC.TransfersReceived == 0 || s.RTC.BadSignature != 0 {
			t.Errorf("%s: %+v, %d transfers received", s.ID[:8], *s.Learn, s.RTC.TransfersReceived)
		}
		if s.Learn.Refused != 0 {
			t.Logf("%s: %d MEP messages dropped (from non-neighbours)", s.ID[:8], s.Learn.Refused)
		}
		// With a codec, the models went out encoded: 8-bit deltas are
		// about a quarter of float32, 4-bit ones about an eighth.
		if codec != "" && (s.Learn.Codec != codec || s.Learn.ModelBytesWire == 0 || 3*s.Learn.ModelBytesWire > s.Learn.ModelBytesRaw) {
			t.Errorf("%s: codec %q, model bytes %d as float32, %d on the wire", s.ID[:8], s.Learn.Codec, s.Learn.ModelBytesRaw, s.Learn.ModelBytesWire)
		}
	}
}
