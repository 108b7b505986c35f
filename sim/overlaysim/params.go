package overlaysim

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/sim/overlaynet"
	"github.com/peerlearn/peerlearn/sim/simnet"
	"github.com/peerlearn/peerlearn/types/ident"
)

// ErrInvalid marks bad parameters.
var ErrInvalid = errors.New("overlaysim: invalid parameters")

// Dists are the latency distributions Params.Dist may name.
var Dists = []string{"uniform", "exp", "fixed"}

// Params are the settings shared by every experiment.
type Params struct {
	// Spaces is L (degree at most 2L).
	Spaces int
	// Latency is the mean one-way delay; Dist its distribution (see the
	// package documentation).
	Latency time.Duration
	Dist    string
	// Seed makes a run reproducible: IDs, contacts, failures, latencies.
	Seed uint64
	// Every is the virtual time between two correctness samples.
	Every time.Duration
	// Limit is how long (virtual) to wait for the overlay to be correct,
	// after a churn event and after each batch or join of a build.
	Limit time.Duration
	// Hold: once correct after a churn event, keep sampling this long
	// and count the samples that are still exactly correct (0: stop at
	// the first correct sample, as Fig. 8 does).
	Hold time.Duration
	// Progress receives progress bars; nil hides them.
	Progress io.Writer
}

// DefaultParams is the paper's Fig. 8 setting: L = 5 (d = 10), 350 ms
// mean latency, sampled every 100 ms for up to 60 s.
func DefaultParams() Params {
	return Params{
		Spaces:  5,
		Latency: 350 * time.Millisecond,
		Dist:    "uniform",
		Seed:    1,
		Every:   100 * time.Millisecond,
		Limit:   60 * time.Second,
	}
}

// Validate reports the first bad field.
func (p Params) Validate() error {
	switch {
	case p.Spaces < 1 || p.Spaces > overlay.MaxSpaces:
		return fmt.Errorf("%w: spaces %d, want 1..%d", ErrInvalid, p.Spaces, overlay.MaxSpaces)
	case p.Latency < 0:
		return fmt.Errorf("%w: latency %v", ErrInvalid, p.Latency)
	case p.Every <= 0:
		return fmt.Errorf("%w: sample period %v", ErrInvalid, p.Every)
	case p.Limit <= 0:
		return fmt.Errorf("%w: limit %v", ErrInvalid, p.Limit)
	case p.Hold < 0:
		return fmt.Errorf("%w: hold %v", ErrInvalid, p.Hold)
	}
	_, err := p.latency()
	return err
}

// latency returns the delay distribution.
func (p Params) latency() (simnet.Latency, error) {
	m := p.Latency
	switch p.Dist {
	case "uniform":
		return simnet.Uniform{Min: m / 2, Max: m/2 + m}, nil
	case "exp":
		return simnet.Exponential{MeanD: m, Min: m / 5}, nil
	case "fixed":
		return simnet.Fixed(m), nil
	}
	return nil, fmt.Errorf("%w: latency distribution %q, want one of %q", ErrInvalid, p.Dist, Dists)
}

// LatencyString describes the distribution, for reports.
func (p Params) LatencyString() string {
	m := p.Latency
	switch p.Dist {
	case "uniform":
		return fmt.Sprintf("uniform %v..%v (mean %v)", m/2, m/2+m, m)
	case "exp":
		return fmt.Sprintf("%v + exponential (mean %v)", m/5, m)
	}
	return fmt.Sprintf("fixed %v", m)
}

// newCluster returns an empty cluster with the default NDMP
// configuration on L spaces; periodicRepair false turns the periodic
// two-way repair off.
func (p Params) newCluster(periodicRepair bool) (*overlaynet.Cluster, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	lat, _ := p.latency()
	cfg := overlaynet.DefaultClusterConfig()
	cfg.Seed = p.Seed
	cfg.Overlay.Spaces = p.Spaces
	if !periodicRepair {
		cfg.Overlay.RepairTicks = 0
	}
	cfg.Net.Latency = lat
	return overlaynet.NewCluster(cfg)
}

// ids returns n distinct node IDs for stream (each experiment phase draws
// from its own stream, so adding nodes to one does not move another).
func (p Params) ids(stream string, n int) []ident.Peer {
	out := make([]ident.Peer, n)
	for i := range out {
		out[i] = ident.PeerFromPublicKey(fmt.Appendf(nil, "overlaysim/%d/%s/%d", p.Seed, stream, i))
	}
	return out
}

// bar returns a progress bar on p.Progress (a silent one if nil).
func (p Params) bar(label string, total int) *progress.Bar {
	w := p.Progress
	if w == nil {
		w = io.Discard
	}
	return progress.New(w, label, int64(total))
}
