package overlaysim

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
)

func small() Params {
	p := DefaultParams()
	p.Spaces = 3
	return p
}

func TestJoinsSmall(t *testing.T) {
	p := small()
	a, err := Joins(context.Background(), p, 40, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Correct || !a.Final().OK() || a.Final().Nodes != 50 {
		t.Fatalf("not correct after the joins: took %v, final %+v", a.Took, a.Final())
	}
	if a.Min().Fraction() >= 1 || a.Took <= 0 || a.Took%p.Every != 0 {
		t.Errorf("joins should drop correctness below 1 and take a multiple of %v: min %v, took %v", p.Every, a.Min().Fraction(), a.Took)
	}
	if a.Final().Control == 0 || a.Final().Heartbeats == 0 {
		t.Errorf("no messages counted: %+v", a.Final())
	}
	b, err := Joins(context.Background(), p, 40, 10)
	if err != nil {
		t.Fatal(err)
	}
	if a.Line() != b.Line() || len(a.Samples) != len(b.Samples) || a.Final() != b.Final() {
		t.Errorf("same seed, different runs:\n%s\n%s", a.Line(), b.Line())
	}
	p.Seed = 2
	c, err := Joins(context.Background(), p, 40, 10)
	if err != nil {
		t.Fatal(err)
	}
	if c.Final() == a.Final() && len(c.Samples) == len(a.Samples) && c.BuildVirtual == a.BuildVirtual {
		t.Errorf("seeds 1 and 2 gave identical runs")
	}
}

func TestFailuresSmall(t *testing.T) {
	p := small()
	r, err := Failures(context.Background(), p, 40, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Correct || !r.Final().OK() || r.Final().Nodes != 30 {
		t.Fatalf("not correct after the failures: took %v, final %+v", r.Took, r.Final())
	}
	if s := r.Samples[0]; s.Extra == 0 || s.Fraction() >= 1 {
		t.Errorf("the crashed nodes should show as extra neighbours at t=0: %+v", s)
	}
}

func TestBuildAndSweep(t *testing.T) {
	p := small()
	b, err := BuildOverlay(context.Background(), p, 24)
	if err != nil {
		t.Fatal(err)
	}
	if !b.OK() || b.N != 24 || b.Nodes != 24 {
		t.Fatalf("build not correct: %+v", b)
	}
	if b.Sent[overlay.MsgJoin] < 23 || b.MsgsPerNode() <= 0 || b.HeartbeatsPerNode() <= 0 {
		t.Errorf("implausible counts: %v", b.Sent)
	}
	if b.Sent[overlay.MsgRepair] > b.Sent[overlay.MsgDiscover] {
		t.Errorf("more repairs than discoveries with the periodic repair off: %v", b.Sent)
	}
	// The sweep takes its n=12 point from a build grown on to 24: it must
	// be exactly the build of 12.
	b12, err := BuildOverlay(context.Background(), p, 12)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := Sweep(context.Background(), p, []int{24, 12})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs[0] != b || bs[1] != b12 {
		t.Errorf("sweep differs from separate builds:\n%s %v\n%s %v\nwant\n%s %v\n%s %v",
			bs[0].Line(), bs[0].Sent, bs[1].Line(), bs[1].Sent, b.Line(), b.Sent, b12.Line(), b12.Sent)
	}
	if _, err := Sweep(context.Background(), p, []int{1, 12}); !errors.Is(err, ErrInvalid) {
		t.Errorf("sweep with n=1: %v", err)
	}
}

func TestScaleSmall(t *testing.T) {
	r, err := Scale(context.Background(), small(), 64, 6)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Recovery.Correct || r.Recovery.Final().Nodes != 58 || r.BuildEvents == 0 || r.PeakMem() == 0 {
		t.Fatalf("scale run: %+v", r)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Joins(ctx, small(), 40, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled Joins: %v", err)
	}
	if _, err := Sweep(ctx, small(), []int{10, 20}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled Sweep: %v", err)
	}
}

func TestParams(t *testing.T) {
	for _, bad := range []func(*Params){
		func(p *Params) { p.Spaces = 0 },
		func(p *Params) { p.Spaces = overlay.MaxSpaces + 1 },
		func(p *Params) { p.Latency = -time.Second },
		func(p *Params) { p.Dist = "pareto" },
		func(p *Params) { p.Every = 0 },
		func(p *Params) { p.Limit = 0 },
	} {
		p := DefaultParams()
		bad(&p)
		if err := p.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: Validate = %v", p, err)
		}
	}
	for _, d := range Dists {
		p := DefaultParams()
		p.Dist = d
		l, err := p.latency()
		if err != nil || l.Mean() != p.Latency {
			t.Errorf("%s: mean %v, want %v (%v)", d, l.Mean(), p.Latency, err)
		}
	}
	if _, err := Joins(context.Background(), small(), 0, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("Joins into 0 nodes: %v", err)
	}
	if _, err := Failures(context.Background(), small(), 10, 10); !errors.Is(err, ErrInvalid) {
		t.Errorf("10 failures of 10: %v", err)
	}
}

func TestLines(t *testing.T) {
	ok := overlay.Correctness{Nodes: 2, Expected: 4, Correct: 4}
	almost := overlay.Correctness{Nodes: 2, Expected: 3000, Correct: 2999, WrongSlots: 1}
	j := Churn{N: 400, Joins: 100, Trace: Trace{Samples: []Sample{{Correctness: ok}}, Correct: true, Took: 5800 * time.Millisecond}}
	if got, want := j.Line(), "overlay n=400 join=100 correctness=1.000 converge_s=5.80"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	f := Churn{N: 400, Fails: 100, Trace: Trace{Samples: []Sample{{Correctness: almost}}, Took: time.Minute}}
	if got, want := f.Line(), "overlay n=400 fail=100 correctness=0.999 recover_s=NaN"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if math.Round(1000*almost.Fraction()) != 1000 {
		t.Fatal("the 0.9995 case no longer tests rounding")
	}
	b := Build{N: 500, Correctness: ok}
	b.Sent[overlay.MsgDiscover] = 13400
	if got, want := b.Line(), "overlay build n=500 correctness=1.000 msgs_per_node=26.8"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestPartitionSmall: a cut longer than the failure timeout splits the
// overlay (at L = 3 a random half need not even hang together: it may be
// several overlays); after the heal they merge into one correct overlay.
func TestPartitionSmall(t *testing.T) {
	p := small()
	r, err := Partition(context.Background(), p, 40, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.AtHeal.OK() || r.AtHeal.Extra == 0 {
		t.Fatalf("at the heal: whole %+v; want split, with the other half's nodes dropped", r.AtHeal)
	}
	if !r.Correct || !r.Final().OK() || r.Final().Nodes != 40 {
		t.Fatalf("not merged: took %v, final %+v", r.Took, r.Final())
	}
	if r.Before.Heartbeats <= 0 || r.After.Total() <= 0 || r.After.Total() > 1.5*r.Before.Total() {
		t.Errorf("message rates before %+v after %+v: want positive, after at most 1.5x before", r.Before, r.After)
	}
}
