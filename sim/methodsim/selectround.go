package methodsim

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/protocol/method"
)

// roundWatch follows the PENS cores' rounds for a SelectionRun: peers
// run their rounds on their own, so round t is complete once the last
// peer holds its round-t model. Each peer's model of a measured round is
// snapshotted when that peer finishes the round (it may be rounds ahead
// when the last one does), and handed to after, with the others', once
// the round is complete.
type roundWatch struct {
	cores   []*method.PENS
	measure func(t int) bool
	after   func(t int, models [][]float32) error
	bar     *progress.Bar
	// last[i] is the last round peer i was seen to complete.
	last []int
	// snaps[t] are the models of measured round t taken so far, got[t]
	// how many peers completed it.
	snaps map[int][][]float32
	got   map[int]int
	err   error
}

// peer looks at peer i's core after each of its turns (CoreRun.AfterPeer).
func (w *roundWatch) peer(i int) {
	c := w.cores[i].Completed()
	if c == w.last[i] || w.err != nil {
		return
	}
	if c != w.last[i]+1 {
		// A turn ends after every training, so this cannot happen; if it
		// did, the snapshot of a round would be missing.
		w.err = fmt.Errorf("%w: peer %d went from round %d to %d unseen", ErrRun, i, w.last[i], c)
		return
	}
	w.last[i] = c
	measured := w.after != nil && (w.measure == nil || w.measure(c))
	if measured {
		if w.snaps[c] == nil {
			w.snaps[c] = make([][]float32, len(w.cores))
		}
		// The runtime may reuse a published buffer once the core moves
		// on: keep a copy.
		w.snaps[c][i] = slices.Clone(w.cores[i].Model())
	}
	w.got[c]++
	if w.got[c] < len(w.cores) {
		return
	}
	delete(w.got, c)
	w.bar.Add(1)
	if measured {
		models := w.snaps[c]
		delete(w.snaps, c)
		if err := w.after(c, models); err != nil {
			w.err = err
		}
	}
}
