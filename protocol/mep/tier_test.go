package mep

import (
	"errors"
	"reflect"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func TestAssignTiers(t *testing.T) {
	for _, c := range []struct{ n, high, low, medium int }{
		{100, 20, 20, 60},
		{16, 3, 3, 10}, // the paper's 16-client testbed
		{3, 1, 1, 1},
		{2, 0, 0, 2},
		{0, 0, 0, 0},
	} {
		caps, err := AssignTiers(c.n, 30, 7)
		if err != nil {
			t.Fatal(err)
		}
		got := map[Tier]int{}
		for _, cp := range caps {
			got[cp.Tier]++
			want := map[Tier]Capacity{
				TierMedium: {TierMedium, 30, 1},
				TierHigh:   {TierHigh, 20, 2.0 / 3},
				TierLow:    {TierLow, 60, 2},
			}[cp.Tier]
			if cp != want {
				t.Fatalf("n=%d: %+v, want %+v", c.n, cp, want)
			}
		}
		if got[TierHigh] != c.high || got[TierLow] != c.low || got[TierMedium] != c.medium {
			t.Errorf("n=%d: %v, want high %d low %d medium %d", c.n, got, c.high, c.low, c.medium)
		}
	}
	a, _ := AssignTiers(50, 30, 1)
	b, _ := AssignTiers(50, 30, 1)
	c, _ := AssignTiers(50, 30, 2)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different tiers")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("seeds 1 and 2 give the same order")
	}
	if _, err := AssignTiers(5, 0, 1); !errors.Is(err, ErrConfig) {
		t.Errorf("period 0: %v", err)
	}
	if p := TierHigh.Period(10); p != 7 { // 20/3 = 6.67 rounds to 7
		t.Errorf("high period of 10: %d", p)
	}
	if p := TierHigh.Period(1); p != 1 {
		t.Errorf("high period of 1: %d", p)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := testConfig(1, 5).Validate(); err != nil {
		t.Fatal(err)
	}
	if err := DefaultConfig().Validate(); !errors.Is(err, ErrConfig) {
		t.Errorf("default without identity: %v", err)
	}
	for name, f := range map[string]func(*Config){
		"task":      func(c *Config) { c.Task = ident.Task{} },
		"arch":      func(c *Config) { c.Arch = "" },
		"params":    func(c *Config) { c.NumParams = 0 },
		"period":    func(c *Config) { c.Period = 0 },
		"tier":      func(c *Config) { c.Tier = 9 },
		"data":      func(c *Config) { c.DataSize = -1 },
		"conf":      func(c *Config) { c.DataConf = 0 },
		"offer":     func(c *Config) { c.OfferTimeout = 0 },
		"transfer":  func(c *Config) { c.TransferTimeout = 0 },
		"join":      func(c *Config) { c.JoinWait = -1 },
		"neighbors": func(c *Config) { c.MaxNeighbors = 0 },
	} {
		c := testConfig(1, 5)
		f(&c)
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
}

func TestSetNeighborsRejects(t *testing.T) {
	c := testConfig(1, 5)
	c.MaxNeighbors = 2
	p, _ := New(c)
	for name, ns := range map[string][]Neighbor{
		"self":      {{ID: id(1), Period: 5}},
		"duplicate": {{ID: id(2), Period: 5}, {ID: id(2), Period: 5}},
		"period":    {{ID: id(2), Period: 0}},
		"too many":  {{ID: id(2), Period: 5}, {ID: id(3), Period: 5}, {ID: id(4), Period: 5}},
	} {
		if err := p.SetNeighbors(ns); !errors.Is(err, ErrNeighbors) {
			t.Errorf("%s: %v, want ErrNeighbors", name, err)
		}
	}
	if err := p.SetNeighbors([]Neighbor{{ID: id(3), Period: 9}, {ID: id(2), Period: 4}}); err != nil {
		t.Fatal(err)
	}
	if got := p.Neighbors(); !reflect.DeepEqual(got, []Neighbor{{id(2), 4}, {id(3), 9}}) {
		t.Errorf("neighbours %v", got)
	}
}

func TestFingerprintOf(t *testing.T) {
	a := FingerprintOf([]float32{1, 2}, nil)
	if a != FingerprintOf([]float32{1, 2}, nil) {
		t.Fatal("not deterministic")
	}
	for _, o := range []Fingerprint{
		FingerprintOf([]float32{1, 2.0000002}, nil),
		FingerprintOf([]float32{1}, []float32{2}),
	} {
		if o == a {
			t.Errorf("collision with %v", o)
		}
	}
	big := make([]float32, 5000) // spans two hash buffers
	if FingerprintOf(big, nil) == FingerprintOf(big[:4999], nil) {
		t.Error("length not hashed")
	}
}

// TierOf splits IDs about 20/20/60 (high, low, medium), the same for an
// ID every time, and CapacityOf gives the tier's period.
func TestTierOfSplitsIDs(t *testing.T) {
	const n = 5000
	count := map[Tier]int{}
	for i := range n {
		pid := ident.PeerFromPublicKey([]byte{byte(i), byte(i >> 8), 't'})
		tr := TierOf(pid)
		if TierOf(pid) != tr {
			t.Fatal("TierOf is not a function of the ID")
		}
		c := CapacityOf(pid, 9)
		if c.Tier != tr || c.Period != tr.Period(9) || c.TrainScale != tr.Scale() {
			t.Fatalf("CapacityOf = %+v for tier %v", c, tr)
		}
		count[tr]++
	}
	for tr, want := range map[Tier]float64{TierHigh: 0.2, TierLow: 0.2, TierMedium: 0.6} {
		if got := float64(count[tr]) / n; got < want-0.03 || got > want+0.03 {
			t.Errorf("tier %v: %.3f of IDs, want %.1f", tr, got, want)
		}
	}
}
