package mep

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Step hands the peer a message received from a neighbour (a MsgModel
// with its payload in Params and Hessian). Errors say why a message was
// dropped; the state stays consistent either way.
func (p *Peer) Step(m Message) error {
	if m.To != p.cfg.ID && m.To != (ident.Peer{}) {
		p.stats.Dropped++
		return fmt.Errorf("%w: %v", ErrNotForMe, m.To)
	}
	n := p.nbrs[m.From]
	if n == nil {
		p.stats.Dropped++
		return fmt.Errorf("%w: %v", ErrNotNeighbor, m.From)
	}
	if err := checkFields(&m); err != nil {
		p.stats.Dropped++
		return err
	}
	switch m.Type {
	case MsgOffer:
		p.onOffer(n, m)
	case MsgHave:
		n.held = m.Fingerprint
		if n.offered == m.Fingerprint {
			n.offered = Fingerprint{}
		}
	case MsgNeed:
		p.onNeed(n, m)
	case MsgModel:
		return p.onModel(n, m)
	}
	return nil
}

// onOffer answers MsgHave when we hold the offered model or a newer one
// from n, or train no more rounds (Config.MaxRounds), else MsgNeed.
func (p *Peer) onOffer(n *neighbor, m Message) {
	reply := Message{Type: MsgNeed, To: n.id, Version: m.Version, Fingerprint: m.Fingerprint}
	if p.last() {
		// Done (or training its last round): no round will mix the
		// model, so it is not fetched; MsgHave stops n offering it.
		reply.Type = MsgHave
		p.stats.OffersDeclined++
		p.send(reply)
		return
	}
	if n.model != nil && (n.modelFP == m.Fingerprint || n.modelVersion >= m.Version) {
		reply.Type = MsgHave
		p.stats.HavesSent++
	} else {
		n.want, n.wantDue = m.Fingerprint, p.now+int64(p.cfg.TransferTimeout)
		p.stats.NeedsSent++
	}
	p.send(reply)
}

// onNeed sends the published model (the offered one or a newer one)
// unless n already got it.
func (p *Peer) onNeed(n *neighbor, m Message) {
	if n.offered == m.Fingerprint {
		n.offered = Fingerprint{}
	}
	if p.version == 0 {
		return
	}
	if n.held == p.fp {
		p.stats.DuplicateNeeds++
		return
	}
	n.held = p.fp
	p.send(Message{
		Type:        MsgModel,
		To:          n.id,
		Version:     p.version,
		Fingerprint: p.fp,
		Model: ModelHeader{
			Task:       p.cfg.Task,
			Arch:       p.cfg.Arch,
			NumParams:  uint32(len(p.params)),
			HasHessian: p.hessian != nil,
			DataSize:   uint64(p.cfg.DataSize),
			Period:     uint32(p.cfg.Period),
			DataConf:   p.cfg.DataConf,
		},
		Params:  p.params,
		Hessian: p.hessian,
	})
	p.stats.ModelsSent++
}

// onModel stores n's model if it is valid and newer than the one held.
func (p *Peer) onModel(n *neighbor, m Message) error {
	if err := p.checkModel(&m); err != nil {
		p.stats.ModelsRejected++
		return err
	}
	if n.model != nil && m.Version <= n.modelVersion {
		if n.want == m.Fingerprint {
			n.want = Fingerprint{}
		}
		p.stats.ModelsStale++
		return nil
	}
	h := &m.Model
	period := observedPeriod(n, int(h.Period), p.now)
	n.model = &aggregate.Contribution{
		From:     n.id,
		Arch:     h.Arch,
		Params:   m.Params,
		DataSize: int(h.DataSize),
		Period:   period,
		DataConf: h.DataConf,
		Hessian:  m.Hessian,
	}
	n.modelVersion, n.modelFP, n.modelAt = m.Version, m.Fingerprint, p.now
	n.want = Fingerprint{}
	p.stats.ModelsReceived++
	return nil
}

// checkModel verifies a MsgModel against the task, the architecture, the
// header and the fingerprint.
func (p *Peer) checkModel(m *Message) error {
	h := &m.Model
	switch {
	case h.Task != p.cfg.Task:
		return fmt.Errorf("%w: task differs", ErrBadModel)
	case h.Arch != p.cfg.Arch:
		return fmt.Errorf("%w: arch %q, want %q", ErrBadModel, h.Arch, p.cfg.Arch)
	case int(h.NumParams) != p.cfg.NumParams || len(m.Params) != p.cfg.NumParams:
		return fmt.Errorf("%w: %d parameters (header %d), want %d", ErrBadModel, len(m.Params), h.NumParams, p.cfg.NumParams)
	case h.HasHessian != (m.Hessian != nil) || (m.Hessian != nil && len(m.Hessian) != len(m.Params)):
		return fmt.Errorf("%w: Hessian of %d entries, header says %v", ErrBadModel, len(m.Hessian), h.HasHessian)
	case !p.cfg.LossyWire && FingerprintOf(m.Params, m.Hessian) != m.Fingerprint:
		return fmt.Errorf("%w: fingerprint mismatch", ErrBadModel)
	}
	return nil
}

// observedPeriod is the period n's new model (arriving at tick now) is
// aggregated with: the longer of the period n claims and the interval we
// measured since its previous model. The claim alone is not evidence (a
// liar claims period 1 to take FedLay's communication confidence c_c =
// 1/T), but the interval between the models that actually arrived is
// measured by us: a neighbour whose models come every 60 ticks counts as
// period 60 whatever it says. A claim longer than the interval is kept,
// since under-claiming freshness only lowers the neighbour's own weight.
// Safe for honest peers: an honest neighbour's models arrive every pair
// period max(T_u, T_v) (or later when a round is slow), so its period
// counts as at most that, which is the rate at which we can use its
// models anyway. Models arriving faster than claimed (unsolicited ones)
// do not shorten the claim; the aggregator's Bounds floor every
// neighbour's period at our own, so c_c never exceeds ours.
func observedPeriod(n *neighbor, claimed int, now int64) int {
	if n.model == nil {
		return claimed // first model: nothing measured yet
	}
	if gap := now - n.modelAt; gap > int64(claimed) {
		return int(min(gap, MaxPeriod))
	}
	return claimed
}
