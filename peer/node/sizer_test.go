package node

import (
	"math"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The gain is √n of the estimate on the FedLay overlay (near-regular),
// clamped to [MinInitGain, MaxInitGain] whatever the estimate claims.
func TestSizerGainClamped(t *testing.T) {
	s, err := newSizer(ident.PeerFromPublicKey([]byte("sizer")))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ n, want float64 }{
		{10, math.Sqrt(10)}, {100, 10}, {4096, 64}, {1 << 20, MaxInitGain}, {1, 1}, {0.25, MinInitGain},
		{0, MinInitGain}, {math.NaN(), MinInitGain}, {math.Inf(1), MinInitGain},
	} {
		if got := s.gain(c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("gain(%v) = %v, want %v", c.n, got, c.want)
		}
	}
	spec := task.DefaultSpec()
	spec.Init = task.Init{Mode: "he-gain"}
	if !NeedsSizeEstimate(spec) {
		t.Error("he-gain with gain 0 needs no estimate")
	}
	spec.Init.Gain = 2
	if NeedsSizeEstimate(spec) {
		t.Error("he-gain with gain 2 needs an estimate")
	}
}

func TestTokenDueForRenewal(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	if TokenDue(now.Add(RenewBefore+time.Minute).Unix(), now) {
		t.Fatal("a token with more than RenewBefore left is due")
	}
	if !TokenDue(now.Add(RenewBefore-time.Minute).Unix(), now) || !TokenDue(now.Add(-time.Hour).Unix(), now) {
		t.Fatal("a token close to (or past) its end is not due")
	}
}
