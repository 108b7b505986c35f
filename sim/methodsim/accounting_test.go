package methodsim

import (
	"math"
	"testing"
	"time"
)

func TestLedgerCountsBothEnds(t *testing.T) {
	l := NewLedger(3)
	l.Send(0, 1, 100, true)
	l.Send(1, 2, 10, false)
	l.Send(2, 2, 999, true) // to oneself: free
	l.Train(0, 50, 2*time.Second)
	l.Train(0, 50, time.Second)
	l.Evaluate(2, 7)
	a0, a1, a2 := l.Peer(0), l.Peer(1), l.Peer(2)
	if a0.BytesSent != 100 || a0.ModelsSent != 1 || a0.MsgsSent != 1 || a0.BytesReceived != 0 {
		t.Errorf("peer 0: %+v", a0)
	}
	if a1.BytesReceived != 100 || a1.ModelsReceived != 1 || a1.BytesSent != 10 || a1.ModelsSent != 0 || a1.MsgsSent != 1 {
		t.Errorf("peer 1: %+v", a1)
	}
	if a2.BytesReceived != 10 || a2.MsgsReceived != 1 || a2.ModelsReceived != 0 || a2.EvalSamples != 7 {
		t.Errorf("peer 2: %+v", a2)
	}
	if a0.Trainings != 2 || a0.TrainSamples != 100 || a0.TrainTime != 3*time.Second {
		t.Errorf("peer 0 training: %+v", a0)
	}
	tot := l.Total()
	if tot.BytesSent != 110 || tot.BytesReceived != 110 || tot.MsgsSent != tot.MsgsReceived {
		t.Errorf("total: %+v", tot)
	}
	if m := l.Mean(); m.BytesSent != 36 || m.TrainTime != time.Second {
		t.Errorf("mean: %+v", m)
	}
}

func curveOf(accs ...float64) Curve {
	c := Curve{Name: "c"}
	for i, a := range accs {
		c.Points = append(c.Points, Point{
			Round: float64(i), Time: time.Duration(i) * 10 * time.Second, Bytes: int64(i) * 1000,
			TrainTime: time.Duration(i) * time.Minute,
		})
		c.Points[i].Acc.Mean = a
	}
	return c
}

func TestReachInterpolates(t *testing.T) {
	c := curveOf(0.1, 0.5, 0.7, 0.9, 0.6)
	got, ok := c.Reach(0.8) // halfway between points 2 and 3
	if !ok {
		t.Fatal("not reached")
	}
	if got.Time != 25*time.Second || got.Bytes != 2500 || got.TrainTime != 150*time.Second || got.Round != 2.5 {
		t.Errorf("Reach(0.8) = %+v", got)
	}
	if got, ok := c.Reach(0.05); !ok || got.Time != 0 {
		t.Errorf("Reach below the first point = %+v, %v", got, ok)
	}
	if got, ok := c.Reach(0.9); !ok || got.Round != 3 {
		t.Errorf("Reach(exact) = %+v, %v", got, ok)
	}
	if _, ok := c.Reach(0.95); ok {
		t.Error("Reach above the peak succeeded")
	}
	if c.Peak() != 0.9 || c.Final().Acc.Mean != 0.6 {
		t.Errorf("peak %v final %v", c.Peak(), c.Final().Acc.Mean)
	}
}

func TestCompareTakesTheBestBaselinePerMetric(t *testing.T) {
	m := Cost{Time: 10 * time.Second, Bytes: 100, TrainTime: time.Second}
	r := Compare(m, map[string]Cost{
		"a": {Time: 15 * time.Second, Bytes: 5000, TrainTime: 50 * time.Second},
		"b": {Time: 40 * time.Second, Bytes: 2000, TrainTime: 20 * time.Second},
	})
	if r.TTA != 1.5 || r.TTAFrom != "a" || r.Comm != 20 || r.CommFrom != "b" || r.Res != 20 || r.ResFrom != "b" {
		t.Errorf("Compare = %+v", r)
	}
	if r := Compare(m, nil); !math.IsNaN(r.TTA) || !math.IsNaN(r.Comm) || !math.IsNaN(r.Res) {
		t.Errorf("no baseline: %+v", r)
	}
}

func TestAssignDevicesShares(t *testing.T) {
	d, err := AssignDevices(10, MobileTiers(), 1)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, x := range d {
		count[x.Tier]++
	}
	if count["fast"] != 2 || count["medium"] != 5 || count["slow"] != 3 {
		t.Errorf("tiers %v, want 2/5/3", count)
	}
	again, _ := AssignDevices(10, MobileTiers(), 1)
	for i := range d {
		if d[i] != again[i] {
			t.Fatal("same seed, different assignment")
		}
	}
	if _, err := AssignDevices(0, MobileTiers(), 1); err == nil {
		t.Error("0 peers accepted")
	}
	if got := (Device{Speed: 200, Bandwidth: 1e6}).TrainTime(100); got != 500*time.Millisecond {
		t.Errorf("TrainTime = %v", got)
	}
}

func TestLinksSerialiseEachEnd(t *testing.T) {
	dev := []Device{{Bandwidth: 1000}, {Bandwidth: 100}, {Bandwidth: 1000}}
	l, err := NewLinks(dev, 0, 0, 1) // no latency
	if err != nil {
		t.Fatal(err)
	}
	// Fast to slow: the slow downlink sets the pace (100 B at 100 B/s).
	if got := l.Transfer(0, 1, 100, 0); got != time.Second {
		t.Errorf("0->1 arrives %v, want 1s", got)
	}
	// 0's uplink was busy only 0.1 s: a transfer to the fast peer 2
	// starts then and takes 0.1 s.
	if got := l.Transfer(0, 2, 100, 0); got != 200*time.Millisecond {
		t.Errorf("0->2 arrives %v, want 200ms", got)
	}
	// 1's downlink is busy until 1 s: 2->1 waits for it.
	if got := l.Transfer(2, 1, 100, 0); got != 2*time.Second {
		t.Errorf("2->1 arrives %v, want 2s", got)
	}
	if got := l.Transfer(1, 1, 1e9, 5*time.Second); got != 5*time.Second {
		t.Errorf("to oneself arrives %v", got)
	}
	// Latency: within [min, max], symmetric, 0 distance to oneself.
	l2, _ := NewLinks(make([]Device, 50), 10*time.Millisecond, 200*time.Millisecond, 3)
	for a := range 50 {
		for b := range 50 {
			lat := l2.Latency(a, b)
			if lat < 10*time.Millisecond || lat > 200*time.Millisecond || lat != l2.Latency(b, a) {
				t.Fatalf("latency %d-%d = %v", a, b, lat)
			}
		}
		if l2.Latency(a, a) != 10*time.Millisecond {
			t.Fatalf("latency to self %v", l2.Latency(a, a))
		}
	}
}
