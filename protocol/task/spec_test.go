package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
	"github.com/peerlearn/peerlearn/types/partition"
)

// golden is a fixed spec whose canonical form and ID must never change:
// peers built from different commits must agree on task IDs. The IDs were
// checked with `printf %s "$canonical" | sha256sum`.
func golden() Spec {
	s := DefaultSpec()
	s.Name = "mnist-fedlay"
	s.Aggregator = "fedlay" // the golden form predates the robust default
	return s
}

// goldenV1 is golden in the version 1 format, which has no spaces field:
// what every spec was before version 2. Its form and ID are those version
// 1 always had.
func goldenV1() Spec {
	s := golden()
	s.Version, s.Spaces = 1, 0
	return s
}

const (
	goldenCanonical   = `{"aggregator":"fedlay","arch":"mlp","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"he","seed":0},"local_epochs":1,"local_steps":0,"max_peers":100,"max_rounds":0,"name":"mnist-fedlay","optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":100,"seed":1,"spec":"dirichlet:0.5"},"period_ms":3000,"selection":{"k":0,"policy":"overlay"},"spaces":5,"target_accuracy":0.9,"tiers":false,"version":2}`
	goldenID          = "f51a9d4ae4f2df8990dae565bdd8fec5204f30adc750a18913d2e2bd63ab0067"
	goldenV1Canonical = `{"aggregator":"fedlay","arch":"mlp","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"he","seed":0},"local_epochs":1,"local_steps":0,"max_peers":100,"max_rounds":0,"name":"mnist-fedlay","optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":100,"seed":1,"spec":"dirichlet:0.5"},"period_ms":3000,"selection":{"k":0,"policy":"overlay"},"target_accuracy":0.9,"tiers":false,"version":1}`
	goldenV1ID        = "f580e76fe0e71a60a47610ed7655dbf7f990c039456299e52c85314da6b1b1a8"
)

func TestGoldenCanonicalAndID(t *testing.T) {
	for _, g := range []struct {
		spec      Spec
		canonical string
		id        string
	}{
		{golden(), goldenCanonical, goldenID},
		{goldenV1(), goldenV1Canonical, goldenV1ID},
	} {
		b, err := g.spec.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != g.canonical {
			t.Fatalf("canonical form changed:\n got %s\nwant %s", b, g.canonical)
		}
		id, err := g.spec.ID()
		if err != nil {
			t.Fatal(err)
		}
		if id.Hex() != g.id {
			t.Fatalf("version %d: ID changed: got %s, want %s", g.spec.Version, id.Hex(), g.id)
		}
	}
}

// A version 1 spec (no spaces field) still loads: its L is SpacesV1, its
// canonical form and ID are unchanged; only version 2 states L.
func TestVersion1Loads(t *testing.T) {
	s, err := Parse([]byte(goldenV1Canonical))
	if err != nil {
		t.Fatal(err)
	}
	if s != goldenV1() || s.Spaces != 0 || s.OverlaySpaces() != SpacesV1 {
		t.Fatalf("version 1 spec read as %+v, L %d", s, s.OverlaySpaces())
	}
	if b, _ := s.Canonical(); string(b) != goldenV1Canonical {
		t.Fatalf("version 1 canonical form changed: %s", b)
	}
	v2 := golden()
	v2.Spaces = 3
	if v2.OverlaySpaces() != 3 {
		t.Fatalf("version 2 L: %d", v2.OverlaySpaces())
	}
	if a, _ := goldenV1().ID(); a == mustID(t, golden()) {
		t.Fatal("a version 1 spec and its version 2 twin share an ID")
	}
}

func mustID(t *testing.T, s Spec) ident.Task {
	t.Helper()
	id, err := s.ID()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// The canonical form must be what a generic sorted-key JSON writer
// produces: re-encoding through a map (whose keys encoding/json sorts)
// gives the same bytes. This catches a field added out of order.
func TestCanonicalKeysSorted(t *testing.T) {
	s := golden()
	s.Init = Init{Mode: "common", Seed: math.MaxUint64}
	s.Selection = Selection{Policy: "pens", K: 3}
	s.Admission = &Admission{Key: strings.Repeat("ab", 32), PoWBits: 12}
	s.Method, s.Aggregator, s.Tiers = "pens", "mean", false
	b, err := s.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(buf.String()); got != string(b) {
		t.Fatalf("keys not in sorted order:\n got %s\nsorted %s", b, got)
	}
}

func TestParseRoundTripAndNormalize(t *testing.T) {
	want, _ := goldenV1().ID()
	// Another key order, spacing and a non-canonical partition spec.
	in := `{ "version": 1, "name": "mnist-fedlay", "dataset": "mnist", "arch": "mlp",
		"aggregator": "fedlay", "batch": 32, "local_epochs": 1, "local_steps": 0,
		"max_peers": 100, "max_rounds": 0, "period_ms": 3000, "tiers": false,
		"target_accuracy": 0.90, "init": {"mode": "he", "gain": 0, "seed": 0},
		"optimizer": {"name": "sgd", "lr": 5e-2, "momentum": 0.9, "weight_decay": 0},
		"partition": {"spec": " dirichlet:0.50 ", "parts": 100, "seed": 1},
		"selection": {"policy": "overlay", "k": 0} }`
	s, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if s.Partition.Spec != "dirichlet:0.5" {
		t.Fatalf("partition not normalized: %q", s.Partition.Spec)
	}
	got, err := s.ID()
	if err != nil || got != want {
		t.Fatalf("ID %v (%v), want %v", got, err, want)
	}
	b, _ := s.Canonical()
	again, err := Parse(b)
	if err != nil || again != s {
		t.Fatalf("canonical form does not parse back: %v", err)
	}
	// The same in version 2, spaces first.
	in2 := strings.Replace(strings.Replace(in, `"version": 1,`, `"spaces": 5, "version": 2,`, 1), "\t", " ", -1)
	s2, err := Parse([]byte(in2))
	if err != nil || mustID(t, s2) != mustID(t, golden()) {
		t.Fatalf("version 2: %+v, %v", s2, err)
	}
}

func TestParseRefuses(t *testing.T) {
	canon := goldenCanonical
	cases := map[string]struct {
		in   string
		want error
	}{
		"empty":         {``, ErrMalformed},
		"not object":    {`[1]`, ErrMalformed},
		"no version":    {`{"name":"x"}`, ErrVersion},
		"version 0":     {strings.Replace(canon, `"version":2`, `"version":0`, 1), ErrVersion},
		"version 3":     {strings.Replace(canon, `"version":2`, `"version":3`, 1), ErrVersion},
		"v1 spaces":     {strings.Replace(goldenV1Canonical, `"target_accuracy"`, `"spaces":5,"target_accuracy"`, 1), ErrInvalid},
		"v2 no spaces":  {strings.Replace(canon, `"spaces":5,`, ``, 1), ErrInvalid},
		"v2 spaces 0":   {strings.Replace(canon, `"spaces":5,`, `"spaces":0,`, 1), ErrInvalid},
		"spaces 17":     {strings.Replace(canon, `"spaces":5,`, `"spaces":17,`, 1), ErrInvalid},
		"unknown field": {strings.Replace(canon, `"tiers"`, `"colour":1,"tiers"`, 1), ErrMalformed},
		"trailing":      {canon + `{}`, ErrMalformed},
		"wrong type":    {strings.Replace(canon, `"batch":32`, `"batch":"32"`, 1), ErrMalformed},
		"huge number":   {strings.Replace(canon, `"batch":32`, `"batch":1e999`, 1), ErrMalformed},
		"float int":     {strings.Replace(canon, `"batch":32`, `"batch":3.5`, 1), ErrMalformed},
		"bad arch":      {strings.Replace(canon, `"arch":"mlp"`, `"arch":"resnet"`, 1), ErrInvalid},
		"too large":     {`{"version":1,"name":"` + strings.Repeat("a", MaxSpecSize) + `"}`, ErrTooLarge},
	}
	for name, c := range cases {
		if _, err := Parse([]byte(c.in)); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", name, err, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	cases := map[string]func(*Spec){
		"name empty":          func(s *Spec) { s.Name = "" },
		"name upper":          func(s *Spec) { s.Name = "MNIST" },
		"name leading dash":   func(s *Spec) { s.Name = "-x" },
		"name long":           func(s *Spec) { s.Name = strings.Repeat("a", MaxNameLen+1) },
		"dataset":             func(s *Spec) { s.Dataset = "cifar10" },
		"arch":                func(s *Spec) { s.Arch = "resnet18" },
		"aggregator":          func(s *Spec) { s.Aggregator = "krum" },
		"aggregator fedavg":   func(s *Spec) { s.Aggregator = "fedavg" },
		"batch 0":             func(s *Spec) { s.Batch = 0 },
		"both local":          func(s *Spec) { s.LocalSteps = 10 },
		"no local":            func(s *Spec) { s.LocalEpochs = 0 },
		"max peers 1":         func(s *Spec) { s.MaxPeers = 1 },
		"max peers huge":      func(s *Spec) { s.MaxPeers = MaxPeersCap + 1 },
		"rounds negative":     func(s *Spec) { s.MaxRounds = -1 },
		"period short":        func(s *Spec) { s.PeriodMS = 10 },
		"target 0":            func(s *Spec) { s.TargetAccuracy = 0 },
		"target NaN":          func(s *Spec) { s.TargetAccuracy = math.NaN() },
		"target >1":           func(s *Spec) { s.TargetAccuracy = 1.5 },
		"init mode":           func(s *Spec) { s.Init.Mode = "xavier" },
		"init gain NaN":       func(s *Spec) { s.Init = Init{Mode: "he-gain", Gain: math.NaN()} },
		"init gain Inf":       func(s *Spec) { s.Init = Init{Mode: "he-gain", Gain: math.Inf(1)} },
		"init gain unused":    func(s *Spec) { s.Init.Gain = 2 },
		"init seed unused":    func(s *Spec) { s.Init.Seed = 7 },
		"optimizer":           func(s *Spec) { s.Optimizer.Name = "rmsprop" },
		"lr 0":                func(s *Spec) { s.Optimizer.LR = 0 },
		"lr NaN":              func(s *Spec) { s.Optimizer.LR = math.NaN() },
		"momentum 1":          func(s *Spec) { s.Optimizer.Momentum = 1 },
		"adam momentum":       func(s *Spec) { s.Optimizer = Optimizer{Name: "adam", LR: 1e-3, Momentum: 0.9} },
		"weight decay NaN":    func(s *Spec) { s.Optimizer.WeightDecay = math.NaN() },
		"parts 0":             func(s *Spec) { s.Partition.Parts = 0 },
		"partition spec":      func(s *Spec) { s.Partition.Spec = "dirichlet:-1" },
		"partition garbage":   func(s *Spec) { s.Partition.Spec = "stripes" },
		"selection":           func(s *Spec) { s.Selection.Policy = "closest" },
		"selection overlay k": func(s *Spec) { s.Selection.K = 3 },
		"selection k 0":       func(s *Spec) { s.Selection, s.Method, s.Aggregator = Selection{Policy: "random"}, "pens", "mean" },
		"selection k huge": func(s *Spec) {
			s.Selection, s.Method, s.Aggregator = Selection{Policy: "pens", K: MaxSelectK + 1}, "pens", "mean"
		},
		"pens aggregator": func(s *Spec) { s.Selection, s.Method = Selection{Policy: "pens", K: 2}, "pens" },
		"method":          func(s *Spec) { s.Method = "fedavg" },
		"pens overlay":    func(s *Spec) { s.Method = "pens" },
		"fedlay policy":   func(s *Spec) { s.Selection = Selection{Policy: "random", K: 3} },
		"gossip policy": func(s *Spec) {
			s.Selection, s.Method, s.Aggregator = Selection{Policy: "greedy", K: 3}, "gossip", "mean"
		},
		"gossip aggregator":   func(s *Spec) { s.Method, s.Aggregator = "gossip", "fedlay" },
		"dpsgd tiers":         func(s *Spec) { s.Method, s.Aggregator, s.Tiers = "dpsgd", "mean", true },
		"spaces 0":            func(s *Spec) { s.Spaces = 0 },
		"spaces negative":     func(s *Spec) { s.Spaces = -1 },
		"spaces huge":         func(s *Spec) { s.Spaces = overlay.MaxSpaces + 1 },
		"spaces in version 1": func(s *Spec) { s.Version = 1 },
	}
	for name, mutate := range cases {
		s := golden()
		mutate(&s)
		err := s.Validate()
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", name, err)
		}
		if _, err := s.ID(); err == nil {
			t.Errorf("%s: ID of an invalid spec", name)
		}
	}
	for _, v := range []int{0, SpecVersion + 1} {
		s := golden()
		s.Version = v
		if err := s.Validate(); !errors.Is(err, ErrVersion) {
			t.Errorf("version %d: %v", v, err)
		}
	}
	s := goldenV1()
	s.Spaces = 3
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), `"version":2`) {
		t.Errorf("spaces in a version 1 spec: %v, want a message naming version 2", err)
	}
	// Every L from 1 to overlay.MaxSpaces.
	for l := 1; l <= overlay.MaxSpaces; l++ {
		s := golden()
		s.Spaces = l
		if err := s.Validate(); err != nil || s.OverlaySpaces() != l {
			t.Errorf("spaces %d: %v", l, err)
		}
	}
	s = golden()
	s.Partition.Spec = "shards:x"
	if err := s.Validate(); !errors.Is(err, partition.ErrSpec) || !errors.Is(err, ErrInvalid) {
		t.Errorf("partition error should wrap partition.ErrSpec and ErrInvalid: %v", err)
	}
	// Every allowed name passes.
	for _, a := range ArchNames() {
		s := golden()
		s.Arch = a
		if err := s.Validate(); err != nil {
			t.Errorf("arch %s: %v", a, err)
		}
	}
	for _, a := range AggregatorNames() {
		s := golden()
		s.Aggregator = a
		if err := s.Validate(); err != nil {
			t.Errorf("aggregator %s: %v", a, err)
		}
	}
}

func TestIDsDiffer(t *testing.T) {
	a, _ := golden().ID()
	s := golden()
	s.Name = "mnist-fedlay-2"
	b, _ := s.ID()
	s = golden()
	s.Partition.Seed = 2
	c, _ := s.ID()
	if a == b || a == c || b == c {
		t.Fatal("distinct specs share an ID")
	}
}

func TestParseList(t *testing.T) {
	one, err := ParseList([]byte(goldenCanonical))
	if err != nil || len(one) != 1 {
		t.Fatalf("single spec: %v %d", err, len(one))
	}
	other := strings.Replace(goldenCanonical, `"mnist-fedlay"`, `"fashion"`, 1)
	other = strings.Replace(other, `"dataset":"mnist"`, `"dataset":"fashion-mnist"`, 1)
	two, err := ParseList([]byte("[" + goldenCanonical + ",\n" + other + "]"))
	if err != nil || len(two) != 2 || two[1].Dataset != "fashion-mnist" {
		t.Fatalf("two specs: %v", err)
	}
	if _, err := ParseList([]byte("[" + goldenCanonical + "," + goldenCanonical + "]")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := ParseList([]byte("[]")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty list: %v", err)
	}
	if _, err := ParseList([]byte(`[{"version":3}]`)); !errors.Is(err, ErrVersion) {
		t.Fatalf("bad member: %v", err)
	}
}
