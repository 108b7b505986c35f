package learn

import (
	"fmt"
	"math"
)

// ScaleInit multiplies the initial model by gain and records the peer's
// Init as InitGain with that gain: the topology-aware initialisation for
// a peer that learns its gain only after NewPeer (a real peer first
// estimates the network size over the overlay, peer/netpeer). The model
// then equals a seeded He draw times gain, as NewPeer with InitGain would
// draw it (biases start at 0). It is refused unless the peer was built
// with InitHe and has not started a round yet, and for a gain that is not
// finite and > 0.
func (p *Peer) ScaleInit(gain float64) error {
	switch {
	case p.cfg.Init.Mode != InitHe:
		return fmt.Errorf("%w: ScaleInit on a peer initialised %v", ErrConfig, p.cfg.Init.Mode)
	case p.work != nil || p.published != nil || p.metrics.Rounds > 0 || p.metrics.RoundsFailed > 0:
		return fmt.Errorf("%w: ScaleInit after the first round", ErrBusy)
	case !(gain > 0) || gain > math.MaxFloat32:
		return fmt.Errorf("%w: init gain %v", ErrConfig, gain)
	}
	g := float32(gain)
	params := p.model.Params()
	for i := range params {
		params[i] *= g
	}
	p.cfg.Init = Init{Mode: InitGain, Gain: gain}
	return nil
}
