package methodsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Device is one peer's hardware: how fast it trains and how fast its
// link is.
type Device struct {
	// Tier names the device class.
	Tier string
	// Speed is the training throughput in samples per second (forward
	// and backward pass plus the optimiser step).
	Speed float64
	// Bandwidth is the link capacity in bytes per second, the same up
	// and down.
	Bandwidth float64
}

// TrainTime is the device time of a training run over samples samples.
func (d Device) TrainTime(samples int) time.Duration {
	return time.Duration(float64(samples) / d.Speed * float64(time.Second))
}

// SendTime is the time the device's link takes to push bytes.
func (d Device) SendTime(bytes int64) time.Duration {
	return time.Duration(float64(bytes) / d.Bandwidth * float64(time.Second))
}

// Tier is a device class and the share of peers in it.
type Tier struct {
	Name      string
	Share     float64
	Speed     float64 // samples per second
	Bandwidth float64 // bytes per second
}

// MobileTiers are three device classes standing in for the FedScale
// mobile traces the Plexus paper samples (AI Benchmark compute speeds,
// MobiPerf bandwidths), which span about an order of magnitude in both:
//
//	tier    share  speed (samples/s)  bandwidth
//	fast    20%    800                12.5 MB/s (100 Mbit/s)
//	medium  50%    300                2.5 MB/s  (20 Mbit/s)
//	slow    30%    100                0.625 MB/s (5 Mbit/s)
//
// The speeds are for the small MNIST models of the scenarios (about
// 0.1 MFLOP a sample); only their ratios matter for the comparisons.
func MobileTiers() []Tier {
	return []Tier{
		{Name: "fast", Share: 0.2, Speed: 800, Bandwidth: 12.5e6},
		{Name: "medium", Share: 0.5, Speed: 300, Bandwidth: 2.5e6},
		{Name: "slow", Share: 0.3, Speed: 100, Bandwidth: 0.625e6},
	}
}

// AssignDevices gives n peers devices from the tiers: round(share*n)
// peers per tier (the last tier takes the rest), in an order shuffled
// by seed.
func AssignDevices(n int, tiers []Tier, seed uint64) ([]Device, error) {
	if n < 1 || len(tiers) == 0 {
		return nil, fmt.Errorf("%w: %d peers, %d tiers", ErrConfig, n, len(tiers))
	}
	out := make([]Device, 0, n)
	for i, t := range tiers {
		if !(t.Speed > 0) || !(t.Bandwidth > 0) || !(t.Share >= 0) {
			return nil, fmt.Errorf("%w: tier %q: speed %v, bandwidth %v, share %v", ErrConfig, t.Name, t.Speed, t.Bandwidth, t.Share)
		}
		k := int(math.Round(t.Share * float64(n)))
		if i == len(tiers)-1 {
			k = n - len(out)
		}
		for range min(k, n-len(out)) {
			out = append(out, Device{Tier: t.Name, Speed: t.Speed, Bandwidth: t.Bandwidth})
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x646576696365))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out, nil
}
