package methodsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Links times model transfers between peers (see the package comment,
// "Model of time"): every peer's uplink and downlink carry one transfer
// at a time, at the peer's bandwidth; a transfer runs at the pace of the
// slower end and arrives one propagation latency after its last byte.
// Not safe for concurrent use.
type Links struct {
	dev      []Device
	pos      []float64 // place on a unit ring (latency model)
	min, max time.Duration
	upFree   []time.Duration
	downFree []time.Duration
}

// NewLinks returns the links of peers with the given devices. Latency
// between two peers is min plus (max - min) times their distance on a
// ring where every peer gets a place drawn from seed (distance 0 to 1,
// half the ring's circumference): a stand-in for the geographic
// round-trip traces of the Plexus paper.
func NewLinks(dev []Device, minLat, maxLat time.Duration, seed uint64) (*Links, error) {
	if len(dev) == 0 || minLat < 0 || maxLat < minLat {
		return nil, fmt.Errorf("%w: %d devices, latency %v..%v", ErrConfig, len(dev), minLat, maxLat)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6c696e6b73))
	l := &Links{
		dev: dev, pos: make([]float64, len(dev)), min: minLat, max: maxLat,
		upFree: make([]time.Duration, len(dev)), downFree: make([]time.Duration, len(dev)),
	}
	for i := range l.pos {
		l.pos[i] = rng.Float64()
	}
	return l, nil
}

// Latency returns the one-way propagation delay between two peers.
func (l *Links) Latency(a, b int) time.Duration {
	d := math.Abs(l.pos[a] - l.pos[b])
	d = math.Min(d, 1-d) * 2 // 0..1
	return l.min + time.Duration(d*float64(l.max-l.min))
}

// Transfer sends bytes from one peer to another, ready to go at ready,
// and returns when they arrive. The sender pushes them at its bandwidth
// once its uplink is free; the receiver's downlink takes them at its
// bandwidth once it is free (at the earliest when the sender starts);
// the transfer ends when both are done and arrives Latency later. A
// transfer to oneself arrives at ready.
func (l *Links) Transfer(from, to int, bytes int64, ready time.Duration) time.Duration {
	if from == to {
		return ready
	}
	start := max(ready, l.upFree[from])
	sent := start + l.dev[from].SendTime(bytes)
	l.upFree[from] = sent
	recvStart := max(start, l.downFree[to])
	done := max(sent, recvStart+l.dev[to].SendTime(bytes))
	l.downFree[to] = done
	return done + l.Latency(from, to)
}
