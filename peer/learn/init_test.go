package learn

import (
	"errors"
	"math"
	"testing"
)

func std(xs []float32) float64 {
	var s, ss float64
	for _, x := range xs {
		s += float64(x)
		ss += float64(x) * float64(x)
	}
	n := float64(len(xs))
	return math.Sqrt(ss/n - (s/n)*(s/n))
}

// Independent He draws differ per peer; common draws are identical; the
// gain multiplies the spread of the weights.
func TestInitModes(t *testing.T) {
	tk := newTask(t, 2, 10, 9)
	he := newPeers(t, tk, nil)
	common := newPeers(t, tk, func(_ int, c *Config) { c.Init = Init{Mode: InitCommon, CommonSeed: 42} })
	gain := newPeers(t, tk, func(_ int, c *Config) { c.Init = Init{Mode: InitGain, Gain: 4} })
	w := func(p *Peer) []float32 { return p.model.Params()[:taskFeatures*128] } // first layer's weights
	equal := func(a, b []float32) bool {
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	if equal(w(he[0]), w(he[1])) || !equal(w(common[0]), w(common[1])) {
		t.Fatal("He draws should differ per peer, common ones should not")
	}
	if r := std(w(gain[0])) / std(w(he[0])); math.Abs(r-4) > 0.05 || !equal(w(gain[0])[:1], []float32{4 * w(he[0])[0]}) {
		t.Fatalf("gain 4: spread ratio %.3f, first weight %v vs %v", r, w(gain[0])[0], w(he[0])[0])
	}
	cfg := testConfig(tk, 0)
	cfg.Init = Init{Mode: InitGain}
	if _, err := NewPeer(cfg, tk.local[0]); !errors.Is(err, ErrConfig) {
		t.Fatalf("gain 0: %v, want ErrConfig", err)
	}
}

// Declared initial weights are every peer's start, exactly; weights of
// the wrong count, none or non-finite are refused.
func TestInitWeights(t *testing.T) {
	tk := newTask(t, 2, 10, 9)
	n := newPeers(t, tk, nil)[0].model.NumParams()
	w := make([]float32, n)
	for i := range w {
		w[i] = float32(i%97) / 100
	}
	peers := newPeers(t, tk, func(_ int, c *Config) { c.Init = Init{Mode: InitWeights, Weights: w} })
	for i, p := range peers {
		got := p.model.Params()
		for j := range w {
			if got[j] != w[j] {
				t.Fatalf("peer %d parameter %d is %v, the weights say %v", i, j, got[j], w[j])
			}
		}
	}
	bad := append([]float32{}, w...)
	bad[3] = float32(math.NaN())
	for name, ws := range map[string][]float32{"none": nil, "short": w[:n-1], "NaN": bad} {
		cfg := testConfig(tk, 0)
		cfg.Init = Init{Mode: InitWeights, Weights: ws}
		if _, err := NewPeer(cfg, tk.local[0]); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
}

// Misuse is refused with the package's sentinels.
func TestMisuse(t *testing.T) {
	tk := newTask(t, 2, 10, 10)
	peers := newPeers(t, tk, nil)
	w, err := peers[0].SyncWork(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := peers[0].SyncWork(nil); !errors.Is(err, ErrBusy) {
		t.Fatalf("second SyncWork: %v, want ErrBusy", err)
	}
	if err := peers[0].Finish(w); !errors.Is(err, ErrWork) {
		t.Fatalf("Finish before Run: %v, want ErrWork", err)
	}
	w.Run()
	if err := peers[1].Finish(w); !errors.Is(err, ErrWork) {
		t.Fatalf("Finish on another peer: %v, want ErrWork", err)
	}
	if err := peers[0].Finish(w); err != nil {
		t.Fatal(err)
	}
	if err := peers[0].Tick(); !errors.Is(err, ErrMode) {
		t.Fatalf("Tick on a synchronous peer: %v, want ErrMode", err)
	}
	if err := peers[1].Tick(); err != nil {
		t.Fatal(err)
	}
	if _, err := peers[1].SyncWork(nil); !errors.Is(err, ErrMode) {
		t.Fatalf("SyncWork on an asynchronous peer: %v, want ErrMode", err)
	}
	cfg := testConfig(tk, 0)
	cfg.Aggregator = "fedavg"
	if _, err := NewPeer(cfg, tk.local[0]); !errors.Is(err, ErrConfig) {
		t.Fatalf("fedavg peer: %v, want ErrConfig", err)
	}
}

// A FedAvg client trains from the global model it is given.
func TestTrainFrom(t *testing.T) {
	tk := newTask(t, 2, 40, 11)
	peers := newPeers(t, tk, func(_ int, c *Config) { c.ResetOptimizer = true })
	global := make([]float32, peers[0].NumParams())
	w, err := peers[0].TrainFrom(global)
	if err != nil {
		t.Fatal(err)
	}
	w.Run()
	if err := peers[0].Finish(w); err != nil {
		t.Fatal(err)
	}
	m := peers[0].Metrics()
	if m.ModelsSent != 1 || m.ModelsReceived != 1 || m.SamplesTrained != 40 {
		t.Fatalf("metrics %+v", m)
	}
	// From all-zero weights only the last layer's bias can move: the
	// hidden layer stays zero.
	for i, v := range peers[0].Published()[:taskFeatures*128] {
		if v != 0 {
			t.Fatalf("weight %d = %v, want 0", i, v)
		}
	}
}

// With PublishInitial the first synchronous round averages the untrained
// initial models: from a common seed the average is the initial model
// itself; the round's Mixed model is that average, before training.
func TestPublishInitial(t *testing.T) {
	tk := newTask(t, 3, 30, 12)
	peers := newPeers(t, tk, func(_ int, c *Config) { c.Aggregator = "decavg"; c.Init = Init{Mode: InitCommon, CommonSeed: 3} })
	init0, err := peers[0].Params()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range peers {
		if err := p.PublishInitial(); err != nil {
			t.Fatal(err)
		}
	}
	if err := peers[0].PublishInitial(); !errors.Is(err, ErrConfig) {
		t.Fatalf("second PublishInitial: %v, want ErrConfig", err)
	}
	syncRounds(t, peers, [][]int{{1, 2}, {0, 2}, {0, 1}}, 1, false)
	mixed, trained := peers[0].Mixed(), peers[0].Published()
	moved := false
	for i := range init0 {
		if d := math.Abs(float64(mixed[i] - init0[i])); d > 1e-6 {
			t.Fatalf("parameter %d: average of equal models %v, initial %v", i, mixed[i], init0[i])
		}
		moved = moved || trained[i] != mixed[i]
	}
	if !moved || peers[0].Metrics().Rounds != 1 {
		t.Fatalf("training did not move the model (rounds %d)", peers[0].Metrics().Rounds)
	}
}

// ScaleInit turns a He peer into the InitGain peer of the same seed, and
// only before its first round.
func TestScaleInit(t *testing.T) {
	tk := newTask(t, 2, 10, 9)
	const g = 2.7
	scaled := newPeers(t, tk, nil)
	gain := newPeers(t, tk, func(_ int, c *Config) { c.Init = Init{Mode: InitGain, Gain: g} })
	if err := scaled[0].ScaleInit(g); err != nil {
		t.Fatal(err)
	}
	a, b := scaled[0].model.Params(), gain[0].model.Params()
	for i := range a {
		if d := math.Abs(float64(a[i] - b[i])); d > 1e-6*math.Abs(float64(b[i]))+1e-12 {
			t.Fatalf("param %d: scaled %v, drawn with the gain %v", i, a[i], b[i])
		}
	}
	if c := scaled[0].Config().Init; c.Mode != InitGain || c.Gain != g {
		t.Fatalf("Init after ScaleInit: %+v", c)
	}
	if err := scaled[0].ScaleInit(g); !errors.Is(err, ErrConfig) {
		t.Fatalf("second ScaleInit: %v, want ErrConfig", err)
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if err := scaled[1].ScaleInit(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("gain %v: %v, want ErrConfig", bad, err)
		}
	}
	w, err := scaled[1].SyncWork(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := scaled[1].ScaleInit(g); !errors.Is(err, ErrBusy) {
		t.Fatalf("ScaleInit with a round outstanding: %v, want ErrBusy", err)
	}
	w.Run()
	if err := scaled[1].Finish(w); err != nil {
		t.Fatal(err)
	}
}
