package task

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/partition"
)

// Validate checks every field; the error wraps ErrVersion or ErrInvalid
// and names the first offending field. It checks names against this
// package's lists, not against an engine (see ValidateFor).
func (s *Spec) Validate() error {
	if err := checkVersion(s.Version); err != nil {
		return err
	}
	if err := validName(s.Name); err != nil {
		return err
	}
	checks := []func() error{
		s.validDataset, // dataset, or the task's own data (data.go)
		s.validArch,    // arch, or the declared model (model.go)
		func() error { return oneOf("aggregator", s.Aggregator, AggregatorNames()) },
		s.validCodec,
		func() error { return intIn("batch", s.Batch, 1, MaxBatch) },
		s.validLocal,
		func() error { return intIn("max_peers", s.MaxPeers, 2, MaxPeersCap) },
		func() error { return intIn("max_rounds", s.MaxRounds, 0, MaxRoundsCap) },
		func() error { return intIn("period_ms", s.PeriodMS, MinPeriodMS, MaxPeriodMS) },
		s.validTarget,
		s.Init.validate,
		s.Optimizer.validate,
		s.Partition.validate,
		s.Selection.validate,
		s.validMethod,
		s.validSpaces,
		s.validAdmission,
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, a...)...)
}

func validName(n string) error {
	if len(n) == 0 || len(n) > MaxNameLen {
		return invalid("name %q: want 1 to %d characters", n, MaxNameLen)
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return invalid("name %q: want lowercase letters, digits, '.', '_', '-', starting with a letter or digit", n)
		}
	}
	return nil
}

func oneOf(field, v string, allowed []string) error {
	if !slices.Contains(allowed, v) {
		return invalid("%s %q: want one of %v", field, v, allowed)
	}
	return nil
}

func intIn(field string, v, lo, hi int) error {
	if v < lo || v > hi {
		return invalid("%s %d: want %d to %d", field, v, lo, hi)
	}
	return nil
}

func floatIn(field string, v, lo, hi float64) error {
	if math.IsNaN(v) || v < lo || v > hi {
		return invalid("%s %v: want %v to %v", field, v, lo, hi)
	}
	return nil
}

func checkVersion(v int) error {
	if v < MinSpecVersion || v > SpecVersion {
		return fmt.Errorf("%w: version %d, want %d to %d", ErrVersion, v, MinSpecVersion, SpecVersion)
	}
	return nil
}

// validSpaces: version 1 has no spaces field (its L is SpacesV1); from
// version 2 it is required.
func (s *Spec) validSpaces() error {
	if s.Version == 1 {
		if s.Spaces != 0 {
			return invalid(`spaces %d: a version 1 spec has no spaces (its L is %d); to choose L, write "version":%d`, s.Spaces, SpacesV1, SpecVersion)
		}
		return nil
	}
	return intIn("spaces", s.Spaces, 1, overlay.MaxSpaces)
}

func (s *Spec) validLocal() error {
	if err := intIn("local_epochs", s.LocalEpochs, 0, MaxEpochs); err != nil {
		return err
	}
	if err := intIn("local_steps", s.LocalSteps, 0, MaxSteps); err != nil {
		return err
	}
	if (s.LocalEpochs > 0) == (s.LocalSteps > 0) {
		return invalid("local_epochs %d, local_steps %d: want exactly one positive", s.LocalEpochs, s.LocalSteps)
	}
	return nil
}

func (s *Spec) validTarget() error {
	if math.IsNaN(s.TargetAccuracy) || !(s.TargetAccuracy > 0 && s.TargetAccuracy <= 1) {
		return invalid("target_accuracy %v: want (0, 1]", s.TargetAccuracy)
	}
	return nil
}

func (i *Init) validate() error {
	if err := oneOf("init.mode", i.Mode, InitModes()); err != nil {
		return err
	}
	if i.Mode == "he-gain" {
		if err := floatIn("init.gain", i.Gain, 0, MaxGain); err != nil {
			return err
		}
	} else if i.Gain != 0 {
		return invalid("init.gain %v: only mode he-gain has a gain (want 0)", i.Gain)
	}
	if i.Mode != "common" && i.Seed != 0 {
		return invalid("init.seed %d: only mode common has a seed (want 0)", i.Seed)
	}
	return nil
}

func (o *Optimizer) validate() error {
	if err := oneOf("optimizer.name", o.Name, OptimizerNames()); err != nil {
		return err
	}
	if math.IsNaN(o.LR) || !(o.LR > 0 && o.LR <= MaxLR) {
		return invalid("optimizer.lr %v: want (0, %v]", o.LR, MaxLR)
	}
	if o.Name == "sgd" {
		if math.IsNaN(o.Momentum) || !(o.Momentum >= 0 && o.Momentum < 1) {
			return invalid("optimizer.momentum %v: want [0, 1)", o.Momentum)
		}
	} else if o.Momentum != 0 {
		return invalid("optimizer.momentum %v: only sgd has a momentum (want 0)", o.Momentum)
	}
	return floatIn("optimizer.weight_decay", o.WeightDecay, 0, 1)
}

func (p *Partition) validate() error {
	if err := intIn("partition.parts", p.Parts, 1, MaxPeersCap); err != nil {
		return err
	}
	if _, err := partition.Parse(p.Spec); err != nil {
		return invalid("partition.spec: %w", err)
	}
	return nil
}

// validMethod: a known method; the PENS family, and only it, selects
// neighbours by a policy other than "overlay".
func (s *Spec) validMethod() error {
	m := s.MethodOf()
	if err := oneOf("method", m, MethodNames()); err != nil {
		return err
	}
	if pens := s.Selection.Policy != "overlay"; pens != (m == "pens") {
		return invalid(`method %q with selection.policy %q: policies other than "overlay" are method "pens"'s, and it needs one`, m, s.Selection.Policy)
	}
	if m == "plexus" && s.Init.Mode != "common" {
		// Algorithm 2 starts every sample from one model.
		return invalid(`method plexus trains one global model from a common initialisation: init.mode %q, want "common"`, s.Init.Mode)
	}
	if m == "gossip" || m == "dpsgd" || m == "pens" || m == "plexus" {
		// Their mixing weights are the method's (ages, Metropolis-
		// Hastings, the selection policy's, Plexus's FedAvg by data
		// size), and every peer runs one period: a spec saying otherwise
		// would be accepted and ignored.
		if s.Aggregator != "mean" {
			return invalid(`method %s mixes by its own weights: aggregator %q, want "mean"`, m, s.Aggregator)
		}
		if s.Tiers {
			return invalid("method %s: tiers are FedLay's (want false)", m)
		}
	}
	return nil
}

func (s *Selection) validate() error {
	if err := oneOf("selection.policy", s.Policy, SelectionPolicies()); err != nil {
		return err
	}
	if s.Policy == "overlay" || s.Policy == "local" {
		if s.K != 0 {
			return invalid("selection.k %d: policy %s chooses no neighbours (want 0)", s.K, s.Policy)
		}
		return nil
	}
	return intIn("selection.k", s.K, 1, MaxSelectK)
}

// validAdmission: a key, if named, is 64 lowercase hex digits of an
// ed25519 public key; the difficulty is bounded.
func (s *Spec) validAdmission() error {
	a := s.Admission
	if a == nil {
		return nil
	}
	if a.Key != "" {
		b, err := hex.DecodeString(a.Key)
		if err != nil || len(b) != ed25519.PublicKeySize || hex.EncodeToString(b) != a.Key {
			return invalid("admission.key %q: want %d lowercase hex digits", a.Key, 2*ed25519.PublicKeySize)
		}
	}
	return intIn("admission.pow_bits", a.PoWBits, 0, admission.MaxPoWBits)
}

// validCodec checks the codec's name; its parameter, if any, is the
// engine's to check (Engine).
func (s *Spec) validCodec() error {
	if s.Codec == "" {
		return nil
	}
	name, _, _ := strings.Cut(s.Codec, ":")
	return oneOf("codec", name, CodecNames())
}
