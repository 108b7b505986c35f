package methodsim

import (
	"fmt"
	"time"
)

// Account is what one peer spent: traffic in both directions and local
// training (the "resources" of the Plexus paper: the time a device spends
// training).
type Account struct {
	// BytesSent and BytesReceived count every byte on the wire: message
	// headers plus model payloads (4 bytes a parameter).
	BytesSent, BytesReceived int64
	// MsgsSent and MsgsReceived count messages; ModelsSent and
	// ModelsReceived those that carried a model (the PENS thesis'
	// communication cost is ModelsSent + ModelsReceived).
	MsgsSent, MsgsReceived     int64
	ModelsSent, ModelsReceived int64
	// Trainings counts local training runs, TrainSamples the samples
	// they stepped over, TrainTime the device time they took.
	Trainings    int64
	TrainSamples int64
	TrainTime    time.Duration
	// EvalSamples counts samples this peer evaluated for others
	// (evaluation requests: forward passes only).
	EvalSamples int64
}

// add adds b into a.
func (a *Account) add(b Account) {
	a.BytesSent += b.BytesSent
	a.BytesReceived += b.BytesReceived
	a.MsgsSent += b.MsgsSent
	a.MsgsReceived += b.MsgsReceived
	a.ModelsSent += b.ModelsSent
	a.ModelsReceived += b.ModelsReceived
	a.Trainings += b.Trainings
	a.TrainSamples += b.TrainSamples
	a.TrainTime += b.TrainTime
	a.EvalSamples += b.EvalSamples
}

// Ledger holds one Account per peer (peers are indices 0..n-1).
type Ledger struct {
	peers []Account
}

// NewLedger returns a ledger for n peers.
func NewLedger(n int) *Ledger { return &Ledger{peers: make([]Account, n)} }

// N returns the number of peers.
func (l *Ledger) N() int { return len(l.peers) }

// Send records a message of bytes from one peer to another; model says
// whether it carried a model. A message to oneself costs nothing and is
// not recorded.
func (l *Ledger) Send(from, to int, bytes int64, model bool) {
	if from == to {
		return
	}
	s, r := &l.peers[from], &l.peers[to]
	s.BytesSent += bytes
	r.BytesReceived += bytes
	s.MsgsSent++
	r.MsgsReceived++
	if model {
		s.ModelsSent++
		r.ModelsReceived++
	}
}

// Train records one local training run of a peer.
func (l *Ledger) Train(peer int, samples int, d time.Duration) {
	a := &l.peers[peer]
	a.Trainings++
	a.TrainSamples += int64(samples)
	a.TrainTime += d
}

// Evaluate records samples a peer evaluated for another.
func (l *Ledger) Evaluate(peer int, samples int) {
	l.peers[peer].EvalSamples += int64(samples)
}

// Peer returns peer i's account.
func (l *Ledger) Peer(i int) Account { return l.peers[i] }

// Total sums the accounts of every peer. Every message is counted once
// in BytesSent and once in BytesReceived, so the network's volume is
// Total().BytesSent.
func (l *Ledger) Total() Account {
	var t Account
	for _, a := range l.peers {
		t.add(a)
	}
	return t
}

// Mean is Total divided by the number of peers, field by field (rounded
// down).
func (l *Ledger) Mean() Account {
	t := l.Total()
	n := int64(max(len(l.peers), 1))
	return Account{
		BytesSent: t.BytesSent / n, BytesReceived: t.BytesReceived / n,
		MsgsSent: t.MsgsSent / n, MsgsReceived: t.MsgsReceived / n,
		ModelsSent: t.ModelsSent / n, ModelsReceived: t.ModelsReceived / n,
		Trainings: t.Trainings / n, TrainSamples: t.TrainSamples / n,
		TrainTime: t.TrainTime / time.Duration(n), EvalSamples: t.EvalSamples / n,
	}
}

// String summarises the totals.
func (a Account) String() string {
	return fmt.Sprintf("sent %s (%d msgs, %d models), received %s, %d trainings of %d samples in %v",
		FormatBytes(float64(a.BytesSent)), a.MsgsSent, a.ModelsSent, FormatBytes(float64(a.BytesReceived)),
		a.Trainings, a.TrainSamples, a.TrainTime.Round(time.Millisecond))
}

// FormatBytes prints a byte count with a decimal unit.
func FormatBytes(b float64) string {
	switch {
	case b >= 1e9:
		return fmt.Sprintf("%.2f GB", b/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.2f MB", b/1e6)
	case b >= 1e3:
		return fmt.Sprintf("%.1f kB", b/1e3)
	}
	return fmt.Sprintf("%.0f B", b)
}
