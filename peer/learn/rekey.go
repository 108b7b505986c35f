package learn

import (
	"fmt"

	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Rekey gives the peer a new ID between rounds: the runtime moved it to
// a new place in the overlay under a new key (a captured neighbourhood,
// docs/SECURITY.md "Neighbourhood health"). What the volunteer's work
// made stays: the published model and its round, the optimiser, the
// data and its batches, the counters, the neighbours' reputations. The
// MEP starts again under the new ID from the published model (as after
// Resume: no neighbours, the round count kept), and the neighbourhood
// check starts afresh (its verdicts were about the neighbours left
// behind). Refused while a Work is outstanding.
func (p *Peer) Rekey(id ident.Peer) error {
	switch {
	case p.work != nil:
		return fmt.Errorf("%w: rekey during a round", ErrBusy)
	case id == ident.Peer{}:
		return fmt.Errorf("%w: rekey to the zero ID", ErrConfig)
	case id == p.cfg.ID:
		return nil
	}
	old, oldID := p.mep, p.cfg.ID
	p.cfg.ID = id
	nm, err := mep.New(p.mepConfig())
	if err == nil && p.published != nil {
		err = nm.Restore(p.published, uint64(p.metrics.Rounds))
	}
	if err != nil {
		p.cfg.ID = oldID
		return fmt.Errorf("%w: rekey: %w", ErrConfig, err)
	}
	if p.mode == modeAsync {
		s := old.Stats()
		p.mepBase.ModelsSent += s.ModelsSent
		p.mepBase.ModelsReceived += s.ModelsReceived
		p.mepBase.ModelsRejected += s.ModelsRejected
		p.mepBase.OffersSkipped += s.OffersSkipped
	}
	p.mep = nm
	if p.health != nil {
		if err := p.newHealthCheck(); err != nil {
			return err // the same config built it before: not reached
		}
	}
	p.replaceAsked = false
	return nil
}
