package netpeer

import (
	"fmt"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/protocol/task"
)

// adoptTask takes the overlay's ring count L from the task spec the
// welcome brought: L is a property of the task, which every peer of it
// must share, not a peer's setting. It overrides Config.Overlay.Spaces
// and Config.RTC.Spaces; the node New built with them is rebuilt if the
// task's differs (nothing has used it yet: Run calls this before joining).
func (p *Peer) adoptTask(spec task.Spec) error {
	l := spec.OverlaySpaces()
	p.cfg.RTC.Spaces = l
	if l == p.cfg.Overlay.Spaces {
		return nil
	}
	p.cfg.Overlay.Spaces = l
	if _, err := overlay.NewNode(p.id, p.cfg.Overlay); err != nil {
		return fmt.Errorf("%w: task %q: %w", ErrConfig, spec.Name, err)
	}
	return nil
}
