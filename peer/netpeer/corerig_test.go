package netpeer

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// coreRig drives a learner's method core through a peer core (node.Node)
// as Run's loop does, without a network: the peer founds an overlay
// nobody joins, so the method core's peers are what the test sets, and
// the core's messages are dropped (the test plays the neighbours).
type coreRig struct {
	t    *testing.T
	n    *node.Node
	l    *learner
	now  time.Time
	tick time.Duration
}

func newCoreRig(t *testing.T, l *learner, tick time.Duration) *coreRig {
	t.Helper()
	epoch := time.Unix(1_700_000_000, 0)
	n, err := node.New(node.Config{
		ID: l.self, Overlay: overlay.DefaultConfig(), Server: "ws://rig", Method: l.method, Target: l.st.Target,
		Registrar: node.RegistrarConfig{Servers: []string{"ws://rig"}, Rand: rand.New(rand.NewPCG(1, 2))},
	}, epoch)
	if err != nil {
		t.Fatal(err)
	}
	l.core = n
	return &coreRig{t: t, n: n, l: l, now: epoch, tick: tick}
}

// step ticks the peer core once and carries out its Ready; it reports
// whether a training ran (on its goroutine, as on a real peer, and
// brought back).
func (r *coreRig) step() bool {
	r.now = r.now.Add(r.tick)
	r.n.Tick(r.now)
	return r.flush()
}

func (r *coreRig) flush() bool {
	trained := false
	for r.n.HasReady() {
		rd := r.n.Ready()
		for _, lg := range rd.Logs {
			r.l.logf("%s", lg.Text)
		}
		for _, d := range rd.Denies {
			r.l.dropped(d)
		}
		if rd.Train != nil {
			r.l.startTraining(rd.Train)
			j := <-r.l.workDone
			if err := r.n.Step(node.TrainDone{Job: j, Elapsed: time.Since(r.l.trainStart)}); err != nil {
				r.t.Fatal(err)
			}
			r.l.trained(j)
			trained = true
		}
	}
	return trained
}

// transfer hands the core a model from id as Run does with an rtc
// transfer.
func (r *coreRig) transfer(from ident.Peer, man rtc.Manifest, payload []byte) {
	if params, ok := r.l.decodeTransfer(from, man, payload); ok {
		r.stepMsg(node.ModelMessage{From: from, Header: man.Meta, Params: params})
	}
}

// app hands the core a control message from id.
func (r *coreRig) app(from ident.Peer, b []byte) {
	r.stepMsg(node.ModelMessage{From: from, Header: b})
}

func (r *coreRig) stepMsg(m node.ModelMessage) {
	if err := r.n.Step(m); err != nil {
		r.t.Fatal(err)
	}
}
