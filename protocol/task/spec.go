package task

import (
	"crypto/ed25519"
	"encoding/hex"
)

// SpecVersion is the spec format version this package writes. It reads
// it and every version from MinSpecVersion on; others are refused.
//
//	1  the first format. It has no "spaces" field: the overlay has
//	   SpacesV1 ring spaces. Such a spec still loads and keeps its
//	   canonical form and ID (Spaces stays 0; OverlaySpaces says 5).
//	2  adds "spaces", the overlay's ring count L, a property of the task
//	   (every peer of a task must use the same L), required.
//
// A new version is made only for an incompatible change.
const (
	SpecVersion    = 2
	MinSpecVersion = 1
)

// SpacesV1 is the overlay's ring count L of a version 1 spec, which
// predates the "spaces" field: every peer then ran with L = 5.
const SpacesV1 = 5

// Spec is a training task. Its JSON keys are declared in sorted order (in
// nested structs too), so encoding/json writes the canonical form directly;
// keep them sorted when adding fields (a test checks).
type Spec struct {
	// Admission says who admits the task's peers and at what cost
	// (types/admission); nil: the signalling server's own key, no proof of
	// work. Absent from the encoding when nil, so older specs keep their
	// IDs.
	Admission *Admission `json:"admission,omitempty"`
	// Aggregator names the aggregation rule (AggregatorNames: the
	// engine's without "fedavg", which is a server's rule).
	Aggregator string `json:"aggregator"`
	// Arch names the model architecture (ArchNames); empty when Model
	// declares the model.
	Arch string `json:"arch"`
	// Batch is the minibatch size of local training.
	Batch int `json:"batch"`
	// Codec is how models travel between peers (CodecNames, with an
	// optional ":" parameter: "delta-int4", "int8:128",
	// "delta-topk:0.25"; engine/modelcodec). Absent (""): float32 as
	// they are, and every spec written before the field keeps its
	// canonical form and ID.
	Codec string `json:"codec,omitempty"`
	// Data, if not nil, names the task's own data set by its manifest
	// (see Data) and Dataset is empty. Absent from the encoding when nil.
	Data *Data `json:"data,omitempty"`
	// Dataset names the data set (DatasetNames); empty with Data.
	Dataset string `json:"dataset"`
	// Init is how peers draw their initial models.
	Init Init `json:"init"`
	// LocalEpochs is the passes over the local shard per round; exactly
	// one of LocalEpochs and LocalSteps is positive.
	LocalEpochs int `json:"local_epochs"`
	// LocalSteps is the minibatches per round (0: use LocalEpochs).
	LocalSteps int `json:"local_steps"`
	// MaxPeers bounds the number of peers of the task (the signalling
	// server refuses more).
	MaxPeers int `json:"max_peers"`
	// MaxRounds ends training after so many local rounds per peer; 0
	// means no bound (train until TargetAccuracy or until stopped).
	MaxRounds int `json:"max_rounds"`
	// Method names the learning method (MethodNames): "fedlay" (FedLay's
	// Model Exchange Protocol over the overlay neighbours), "gossip"
	// (Gossip Learning: push the model to a random overlay neighbour
	// every PeriodMS, age-weighted merge), "dpsgd" (D-PSGD on the overlay
	// graph: synchronous rounds, Metropolis-Hastings mixing; a round waits
	// at most PeriodMS for a neighbour's model), "pens" (the PENS thesis'
	// neighbour selection, Selection's policy, among the overlay
	// neighbours; a round every PeriodMS at most, each wait bounded by it)
	// or "plexus" (Plexus: each round a sample of half MaxPeers, at most
	// 13, chosen by hash(ID, round) from a membership view built over the
	// overlay, trains the global model and the sample's aggregator
	// averages it; T_agg is 2 PeriodMS, T_round 3; init "common"). Absent, it is
	// "fedlay": every spec written before the field keeps its canonical
	// form and ID (Normalized writes "fedlay" as absent).
	Method string `json:"method,omitempty"`
	// Model, if not nil, declares the model (input shape, classes,
	// layers, initial weights; see Model) and Arch is empty. Absent from
	// the encoding when nil, so older specs keep their IDs.
	Model *Model `json:"model,omitempty"`
	// Name is a short human label ([a-z0-9._-], 1 to MaxNameLen bytes).
	// It is part of the ID.
	Name string `json:"name"`
	// Optimizer is the local optimiser.
	Optimizer Optimizer `json:"optimizer"`
	// Partition says how the train set is split among peers.
	Partition Partition `json:"partition"`
	// PeriodMS is the medium tier's round and exchange period T in
	// milliseconds (FedLay's MEP period).
	PeriodMS int `json:"period_ms"`
	// Selection is the neighbour selection policy.
	Selection Selection `json:"selection"`
	// Spaces is the overlay's ring count L (at most 2L neighbours per
	// peer), 1 to overlay.MaxSpaces; every peer of the task uses it.
	// Version 2 on; 0 (and absent from the encoding) in version 1, whose
	// L is SpacesV1: read it with OverlaySpaces.
	Spaces int `json:"spaces,omitempty"`
	// TargetAccuracy is the test accuracy in (0, 1] at which the task
	// counts as done.
	TargetAccuracy float64 `json:"target_accuracy"`
	// Tiers enables FedLay's three capacity tiers (60% medium, 20% high
	// at 2/3 of the period, 20% low at twice it); false: every peer uses
	// PeriodMS.
	Tiers bool `json:"tiers"`
	// Version is the spec format version, MinSpecVersion to SpecVersion.
	Version int `json:"version"`
}

// Admission is the task's admission policy: every peer of the task must
// hold a token signed by Key whose proof of work has PoWBits bits, and
// peers check both before they route through each other.
type Admission struct {
	// Key is the admission server's ed25519 public key, 64 lowercase hex
	// digits; "" means each signalling server's own key, announced in its
	// welcome (then peers admitted by different servers cannot verify each
	// other: a task served by several servers names the key).
	Key string `json:"key,omitempty"`
	// PoWBits is the proof-of-work difficulty, 0 to admission.MaxPoWBits.
	PoWBits int `json:"pow_bits"`
}

// Init chooses the initial parameters (learn.Init).
type Init struct {
	// Gain multiplies every layer's He weights in mode "he-gain": > 0 a
	// fixed gain, 0 to estimate 1/||v_steady|| at run time (initgain's
	// approximate gain from a network size estimate). 0 in other modes.
	Gain float64 `json:"gain"`
	// Mode is one of InitModes: "he" (independent He normal), "he-gain"
	// (He times the gain) or "common" (every peer draws from Seed).
	Mode string `json:"mode"`
	// Seed is the shared seed of mode "common"; 0 in other modes.
	Seed uint64 `json:"seed"`
}

// Optimizer names the local optimiser and its hyper-parameters.
type Optimizer struct {
	// LR is the learning rate, in (0, MaxLR].
	LR float64 `json:"lr"`
	// Momentum is SGD's momentum in [0, 1); 0 for adam and adamw.
	Momentum float64 `json:"momentum"`
	// Name is one of OptimizerNames: "sgd", "adam", "adamw".
	Name string `json:"name"`
	// WeightDecay is SGD's L2 or AdamW's decoupled decay, in [0, 1].
	WeightDecay float64 `json:"weight_decay"`
}

// Partition says how the train set is cut into shards, one per peer.
type Partition struct {
	// Parts is the number of shards; a peer trains on one of them.
	Parts int `json:"parts"`
	// Seed seeds the split, so every peer computes the same shards.
	Seed uint64 `json:"seed"`
	// Spec is a partition spec (types/partition: "iid", "dirichlet:0.5",
	// "shards:2+rotate:0.5", ...), kept in canonical form.
	Spec string `json:"spec"`
}

// Selection is the neighbour selection policy.
type Selection struct {
	// K is m_selected, the peers a round exchanges with: 0 with
	// "overlay" (all overlay neighbours) and "local" (none), 1 to
	// MaxSelectK otherwise.
	K int `json:"k"`
	// Policy is one of SelectionPolicies.
	Policy string `json:"policy"`
}

// DefaultSpec returns FedLay's MNIST setting (Table III): the MLP, FedLay
// confidence aggregation over the overlay neighbours, a label-skewed
// partition, independent He initialisation; with every self-reported
// claim bounded and every neighbour's model clipped around the peer's own
// ("clipped-fedlay"), because anyone with a browser may join a task. Set
// Name (and anything else) before use.
func DefaultSpec() Spec {
	return Spec{
		Aggregator:     "clipped-fedlay",                                      // FedLay's confidence weights, robust to liars
		Arch:           "mlp",                                                 // 784-128-10, the benchmark MLP
		Batch:          32,                                                    // small batches, many steps per epoch
		Dataset:        "mnist",                                               // 60k/10k handwritten digits
		Init:           Init{Mode: "he"},                                      // uncoordinated He normal, no gain
		LocalEpochs:    1,                                                     // one pass over the shard per round
		LocalSteps:     0,                                                     // epochs, not steps
		MaxPeers:       100,                                                   // the paper's 100 clients
		MaxRounds:      0,                                                     // train until the target or stopped
		Name:           "",                                                    // must be set
		Optimizer:      Optimizer{Name: "sgd", LR: 0.05, Momentum: 0.9},       // a stable MLP setting on MNIST
		Partition:      Partition{Parts: 100, Seed: 1, Spec: "dirichlet:0.5"}, // 100 label-skewed shards
		PeriodMS:       3000,                                                  // 3 s rounds (30 MEP ticks of 100 ms)
		Selection:      Selection{Policy: "overlay"},                          // FedLay: all overlay neighbours
		Spaces:         5,                                                     // FedLay's L: up to 10 neighbours
		TargetAccuracy: 0.9,                                                   // FedLay reaches 90.2% (Table III)
		Tiers:          false,                                                 // one period for every peer
		Version:        SpecVersion,                                           // this format
	}
}

// AdmissionKey returns the task's admission key, or nil when the spec
// leaves it to the signalling server (Spec must be valid).
func (s Spec) AdmissionKey() ed25519.PublicKey {
	if s.Admission == nil || s.Admission.Key == "" {
		return nil
	}
	k, _ := hex.DecodeString(s.Admission.Key)
	return k
}

// PoWBits returns the task's proof-of-work difficulty (0 without one).
func (s Spec) PoWBits() int {
	if s.Admission == nil {
		return 0
	}
	return s.Admission.PoWBits
}

// OverlaySpaces returns the overlay's ring count L of the task: Spaces,
// or SpacesV1 for a version 1 spec.
func (s Spec) OverlaySpaces() int {
	if s.Version == 1 {
		return SpacesV1
	}
	return s.Spaces
}
