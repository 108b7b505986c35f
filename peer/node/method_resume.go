package node

import (
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/method"
)

// resumeCore puts a core just built from lp's model where the core of
// lp's resumed checkpoint stood (learn.Peer.MethodProgress: a browser
// tab reloaded), so its round count and max_rounds go on. A Progress
// the core refuses (a damaged or foreign record the checks before let
// through) is logged and the core starts its round count afresh from
// the resumed model.
func resumeCore(name string, core method.Core, lp *learn.Peer, logf func(string, ...any)) {
	pr := lp.MethodProgress()
	if pr == (method.Progress{}) {
		return
	}
	rc, ok := core.(method.Resumable)
	if !ok {
		logf("%s: the core cannot resume round %d: its round count starts afresh", name, pr.Round)
		return
	}
	if err := rc.Resume(pr); err != nil {
		logf("%s: resume: %v: its round count starts afresh", name, err)
		return
	}
	logf("%s: resumed at round %d", name, pr.Round)
}

// keepProgress records the core's Progress with the model lp just
// published, for lp's next Checkpoint.
func keepProgress(core method.Core, lp *learn.Peer) {
	if rc, ok := core.(method.Resumable); ok {
		lp.SetMethodProgress(rc.Progress())
	}
}
