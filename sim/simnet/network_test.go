package simnet

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

type rec struct {
	from string
	msg  int
	at   time.Duration
}

func newNet(t *testing.T, cfg Config[int], names ...string) (*Network[string, int], map[string]*[]rec) {
	t.Helper()
	s := NewScheduler()
	n, err := New[string](s, rand.New(rand.NewPCG(1, 2)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*[]rec{}
	for _, name := range names {
		box := &[]rec{}
		got[name] = box
		if _, err := n.Attach(name, HandlerFunc[string, int](func(from string, m int) {
			*box = append(*box, rec{from, m, s.Now()})
		})); err != nil {
			t.Fatal(err)
		}
	}
	return n, got
}

func TestNetworkDeliversWithLatency(t *testing.T) {
	cfg := DefaultConfig[int]()
	cfg.Latency = Fixed(30 * time.Millisecond)
	cfg.Size = func(int) int { return 100 }
	n, got := newNet(t, cfg, "a", "b")
	ep, _ := n.Attach("c", HandlerFunc[string, int](func(string, int) {}))
	if err := n.Send("a", "b", 1); err != nil {
		t.Fatal(err)
	}
	if err := ep.Send("b", 2); err != nil {
		t.Fatal(err)
	}
	n.Scheduler().RunUntil(time.Second)
	if want := []rec{{"a", 1, 30 * time.Millisecond}, {"c", 2, 30 * time.Millisecond}}; !slices.Equal(*got["b"], want) {
		t.Fatalf("b got %v, want %v", *got["b"], want)
	}
	if c := n.Counters("b"); c.Received != 2 || c.BytesReceived != 200 {
		t.Errorf("b counters %+v", c)
	}
	if c := n.Counters("a"); c.Sent != 1 || c.BytesSent != 100 || c.Dropped != 0 {
		t.Errorf("a counters %+v", c)
	}
	if tot := n.Total(); tot.Sent != 2 || tot.Received != 2 {
		t.Errorf("totals %+v", tot)
	}
	if _, err := n.Attach("a", nil); !errors.Is(err, ErrDuplicate) {
		t.Errorf("attach twice: %v", err)
	}
	if err := n.Send("zed", "a", 1); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("unknown sender: %v", err)
	}
	if err := n.Send("a", "zed", 1); err != nil || n.Counters("a").Dropped != 1 {
		t.Errorf("to unknown: %v, dropped %d", err, n.Counters("a").Dropped)
	}
}

func TestLatencyDistributions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ms := time.Millisecond
	for _, c := range []struct {
		l        Latency
		min, max time.Duration // bounds every sample must respect
	}{
		{Fixed(350 * ms), 350 * ms, 350 * ms},
		{Uniform{250 * ms, 450 * ms}, 250 * ms, 450 * ms},
		{Normal{MeanD: 350 * ms, StdDev: 50 * ms, Min: 100 * ms}, 100 * ms, time.Hour},
		{Exponential{MeanD: 350 * ms, Min: 50 * ms}, 50 * ms, time.Hour},
	} {
		if err := ValidateLatency(c.l); err != nil {
			t.Fatal(err)
		}
		const k = 20000
		var sum float64
		for range k {
			d := c.l.Sample(rng)
			if d < c.min || d > c.max {
				t.Fatalf("%#v sampled %v outside [%v, %v]", c.l, d, c.min, c.max)
			}
			sum += float64(d)
		}
		mean := time.Duration(sum / k)
		if math.Abs(float64(mean-c.l.Mean())) > 0.02*float64(c.l.Mean()) {
			t.Errorf("%#v: sample mean %v, want about %v", c.l, mean, c.l.Mean())
		}
	}
	for _, bad := range []Latency{nil, Fixed(-1), Uniform{2, 1}, Normal{MeanD: 1, Min: 5}, Exponential{MeanD: 1, Min: 2}} {
		if ValidateLatency(bad) == nil {
			t.Errorf("%#v accepted", bad)
		}
	}
}

func TestLoss(t *testing.T) {
	cfg := DefaultConfig[int]()
	cfg.Loss = 0.3
	n, got := newNet(t, cfg, "a", "b")
	for i := range 10000 {
		n.Send("a", "b", i)
	}
	n.Scheduler().RunUntil(time.Second)
	frac := 1 - float64(len(*got["b"]))/10000
	if math.Abs(frac-0.3) > 0.02 {
		t.Errorf("lost %.3f, want about 0.3", frac)
	}
	if c := n.Counters("a"); c.Dropped+uint64(len(*got["b"])) != 10000 {
		t.Errorf("dropped %d + delivered %d != sent", c.Dropped, len(*got["b"]))
	}
	cfg.Loss = 1.5
	if _, err := New[string](NewScheduler(), rand.New(rand.NewPCG(1, 1)), cfg); !errors.Is(err, ErrInvalid) {
		t.Errorf("loss 1.5: %v", err)
	}
}

func TestFIFO(t *testing.T) {
	for _, fifo := range []bool{true, false} {
		cfg := DefaultConfig[int]()
		cfg.FIFO = fifo
		cfg.Latency = Uniform{1 * time.Millisecond, 100 * time.Millisecond}
		n, got := newNet(t, cfg, "a", "b")
		for i := range 200 {
			n.Send("a", "b", i)
		}
		n.Scheduler().RunUntil(time.Second)
		inOrder := slices.IsSortedFunc(*got["b"], func(x, y rec) int { return x.msg - y.msg })
		if len(*got["b"]) != 200 || inOrder != fifo {
			t.Errorf("FIFO=%v: %d delivered, in order %v", fifo, len(*got["b"]), inOrder)
		}
	}
}

func TestPartitionAndHeal(t *testing.T) {
	n, got := newNet(t, DefaultConfig[int](), "a", "b", "c", "d")
	n.Send("a", "c", 0) // in flight when the partition starts: dropped
	if err := n.Partition([]string{"a", "b"}, []string{"c"}); err != nil {
		t.Fatal(err)
	}
	n.Send("a", "b", 1) // same side
	n.Send("c", "a", 2) // across
	n.Send("d", "c", 3) // d is in no group: its own side
	n.Send("a", "d", 4)
	n.Scheduler().RunFor(time.Second)
	if len(*got["b"]) != 1 || len(*got["a"]) != 0 || len(*got["c"]) != 0 || len(*got["d"]) != 0 {
		t.Fatalf("during the partition: a %v b %v c %v d %v", *got["a"], *got["b"], *got["c"], *got["d"])
	}
	n.Heal()
	n.Send("c", "a", 5)
	n.Scheduler().RunFor(time.Second)
	if len(*got["a"]) != 1 {
		t.Fatalf("after heal a got %v", *got["a"])
	}
	if err := n.Partition([]string{"zed"}); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("partition with an unknown node: %v", err)
	}
}

func TestCrash(t *testing.T) {
	n, got := newNet(t, DefaultConfig[int](), "a", "b")
	n.Send("a", "b", 1) // in flight: dropped when b crashes
	if err := n.Crash("b"); err != nil {
		t.Fatal(err)
	}
	n.Scheduler().RunFor(time.Second)
	if len(*got["b"]) != 0 || !n.Crashed("b") {
		t.Fatalf("crashed b got %v", *got["b"])
	}
	if err := n.Send("b", "a", 2); !errors.Is(err, ErrCrashed) {
		t.Errorf("send from a crashed node: %v", err)
	}
	if err := n.Crash("zed"); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("crash unknown: %v", err)
	}
}

func TestSetLinkLatency(t *testing.T) {
	n, got := newNet(t, DefaultConfig[int](), "a", "b", "c")
	if err := n.SetLinkLatency("a", "b", Fixed(time.Second)); err != nil {
		t.Fatal(err)
	}
	n.Send("b", "a", 1)
	n.Send("c", "a", 2)
	n.Scheduler().RunFor(2 * time.Second)
	if want := []rec{{"c", 2, 10 * time.Millisecond}, {"b", 1, time.Second}}; !slices.Equal(*got["a"], want) {
		t.Fatalf("a got %v, want %v", *got["a"], want)
	}
	if err := n.SetLinkLatency("a", "b", Fixed(-1)); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative latency: %v", err)
	}
}
