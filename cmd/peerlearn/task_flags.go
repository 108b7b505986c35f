package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/protocol/task/taskarch"
)

// specFlags binds a flag to every spec field, with task.DefaultSpec
// (FedLay's MNIST setting) as the defaults. fieldFlag maps the spec's
// field names, as task's errors name them, to the flags that set them.
type specFlags struct {
	fs *flag.FlagSet
	s  task.Spec
	// the fields that are not plain values
	admissionKey string
	powBits      int
	input        string
	classes      string
	layers       string
	preset       string
	weightsURL   string
	weightsSHA   string
	weightsFile  string
	dataDir      string
	dataURL      string
}

var fieldFlag = map[string]string{
	"aggregator": "-aggregator", "arch": "-arch", "batch": "-batch", "codec": "-codec", "dataset": "-dataset",
	"init": "-init", "init.gain": "-init-gain", "init.seed": "-init-seed", "init.mode": "-init",
	"local_epochs": "-local-epochs", "local_steps": "-local-steps", "max_peers": "-max-peers",
	"max_rounds": "-max-rounds", "method": "-method", "name": "-name",
	"optimizer": "-optimizer", "optimizer.lr": "-lr", "optimizer.momentum": "-momentum",
	"optimizer.name": "-optimizer", "optimizer.weight_decay": "-weight-decay",
	"partition": "-partition", "partition.parts": "-parts", "partition.seed": "-partition-seed",
	"partition.spec": "-partition", "period_ms": "-period-ms", "selection": "-selection",
	"selection.k": "-select-k", "selection.policy": "-selection", "spaces": "-spaces",
	"target_accuracy": "-target-accuracy", "tiers": "-tiers", "version": "-version",
	"admission": "-admission-key", "admission.key": "-admission-key", "admission.pow_bits": "-pow-bits",
	"model": "-layers", "model.input": "-input", "model.classes": "-classes", "model.layers": "-layers",
	"model.preset": "-preset", "model.weights": "-weights-url", "model.weights.url": "-weights-url",
	"model.weights.sha256": "-weights-sha256",
	"data":                 "-data", "data.manifest_sha256": "-data", "data.url": "-data-url",
}

func newSpecFlags(fs *flag.FlagSet) *specFlags {
	f := &specFlags{fs: fs, s: task.DefaultSpec()}
	s := &f.s
	fs.StringVar(&s.Name, "name", "", "task name ([a-z0-9._-], required)")
	fs.StringVar(&s.Dataset, "dataset", s.Dataset, fmt.Sprintf("data set %v", task.DatasetNames()))
	fs.StringVar(&s.Arch, "arch", s.Arch, fmt.Sprintf("built-in model %v for 28x28x1 samples and 10 classes (not with a declared model: -input, -classes, -layers or -preset)", task.ArchNames()))
	fs.StringVar(&s.Aggregator, "aggregator", s.Aggregator, fmt.Sprintf("aggregation rule %v", task.AggregatorNames()))
	fs.IntVar(&s.Batch, "batch", s.Batch, "minibatch size of local training")
	fs.StringVar(&s.Codec, "codec", s.Codec, fmt.Sprintf("how models travel %v, with an optional :parameter (empty: float32)", task.CodecNames()))
	fs.IntVar(&s.LocalEpochs, "local-epochs", s.LocalEpochs, "passes over the local shard per round (0 with -local-steps)")
	fs.IntVar(&s.LocalSteps, "local-steps", s.LocalSteps, "minibatches per round (0: use -local-epochs)")
	fs.IntVar(&s.MaxPeers, "max-peers", s.MaxPeers, "most peers the task admits")
	fs.IntVar(&s.MaxRounds, "max-rounds", s.MaxRounds, "local rounds per peer (0: no bound)")
	fs.StringVar(&s.Method, "method", "fedlay", fmt.Sprintf("learning method %v", task.MethodNames()))
	fs.IntVar(&s.PeriodMS, "period-ms", s.PeriodMS, "round and exchange period in milliseconds")
	fs.IntVar(&s.Spaces, "spaces", s.Spaces, "overlay ring count L (up to 2L neighbours)")
	fs.Float64Var(&s.TargetAccuracy, "target-accuracy", s.TargetAccuracy, "test accuracy at which the task counts as done")
	fs.BoolVar(&s.Tiers, "tiers", s.Tiers, "FedLay's three capacity tiers")
	fs.IntVar(&s.Version, "version", s.Version, "spec format version")
	fs.StringVar(&s.Init.Mode, "init", s.Init.Mode, fmt.Sprintf("initialisation %v", task.InitModes()))
	fs.Float64Var(&s.Init.Gain, "init-gain", s.Init.Gain, "gain of -init he-gain (0: estimated at run time)")
	fs.Uint64Var(&s.Init.Seed, "init-seed", s.Init.Seed, "shared seed of -init common")
	fs.StringVar(&s.Optimizer.Name, "optimizer", s.Optimizer.Name, fmt.Sprintf("local optimiser %v", task.OptimizerNames()))
	fs.Float64Var(&s.Optimizer.LR, "lr", s.Optimizer.LR, "learning rate")
	fs.Float64Var(&s.Optimizer.Momentum, "momentum", s.Optimizer.Momentum, "SGD momentum (0 for adam, adamw)")
	fs.Float64Var(&s.Optimizer.WeightDecay, "weight-decay", s.Optimizer.WeightDecay, "SGD's L2 or AdamW's decoupled decay")
	fs.StringVar(&s.Partition.Spec, "partition", s.Partition.Spec, "partition spec (iid, dirichlet:A, shards:K, zipf:S, +rotate:F)")
	fs.IntVar(&s.Partition.Parts, "parts", s.Partition.Parts, "number of shards")
	fs.Uint64Var(&s.Partition.Seed, "partition-seed", s.Partition.Seed, "seed of the split")
	fs.StringVar(&s.Selection.Policy, "selection", s.Selection.Policy, fmt.Sprintf("neighbour selection %v", task.SelectionPolicies()))
	fs.IntVar(&s.Selection.K, "select-k", s.Selection.K, "peers a round exchanges with (0 for overlay and local)")
	fs.StringVar(&f.admissionKey, "admission-key", "", "admission server's ed25519 key, 64 hex (with -pow-bits: sets the admission policy)")
	fs.IntVar(&f.powBits, "pow-bits", 0, "proof-of-work bits of the admission policy")
	fs.StringVar(&f.input, "input", "", "declared model: sample shape HxWxC, e.g. 28x28x1")
	fs.StringVar(&f.classes, "classes", "", "declared model: class names, comma-separated, in label order")
	fs.StringVar(&f.layers, "layers", "", "declared model: layers, comma-separated, each TYPE[:field=value...], e.g. conv2d:filters=8:kernel=3:pad=1,relu,maxpool2d:kernel=2,flatten,dense:units=10")
	fs.StringVar(&f.preset, "preset", "", fmt.Sprintf("declared model: a built-in stack %v for -input and -classes (instead of -layers)", task.ArchNames()))
	fs.StringVar(&f.weightsURL, "weights-url", "", "declared model: URL of the initial weights (safetensors)")
	fs.StringVar(&f.weightsSHA, "weights-sha256", "", "declared model: SHA-256 of the weights file (or -weights-file)")
	fs.StringVar(&f.weightsFile, "weights-file", "", "declared model: local copy of the weights file, to compute -weights-sha256")
	fs.StringVar(&f.dataDir, "data", "", "the task's own data set: the folder of its manifest.json (`peerlearn task manifest`), whose sha256 the spec records; needs a declared model")
	fs.StringVar(&f.dataURL, "data-url", "", "where peers can fetch the data set's manifest.json (optional)")
	return f
}

// spec returns the spec the flags describe (not yet validated); its
// errors name the flag.
func (f *specFlags) spec() (task.Spec, error) {
	s := f.s
	if s.Method == "fedlay" {
		s.Method = ""
	}
	if f.admissionKey != "" || f.powBits != 0 {
		s.Admission = &task.Admission{Key: f.admissionKey, PoWBits: f.powBits}
	}
	declared := f.dataDir != "" || f.dataURL != "" || f.input != "" || f.classes != "" || f.layers != "" || f.preset != "" || f.weightsURL != "" || f.weightsSHA != "" || f.weightsFile != ""
	if !declared {
		return s, nil
	}
	archSet := false
	f.fs.Visit(func(fl *flag.Flag) { archSet = archSet || fl.Name == "arch" })
	if archSet {
		return s, fmt.Errorf("-arch %q: leave it out when -input, -classes, -layers or -preset declare the model", s.Arch)
	}
	m := &task.Model{Preset: f.preset}
	var h, w, c int
	if n, err := fmt.Sscanf(f.input, "%dx%dx%d", &h, &w, &c); err != nil || n != 3 || fmt.Sprintf("%dx%dx%d", h, w, c) != f.input {
		return s, fmt.Errorf("-input %q: want HxWxC, e.g. 28x28x1", f.input)
	}
	m.Input = []int{h, w, c}
	if f.classes == "" {
		return s, fmt.Errorf("-classes: required with a declared model (the class names, comma-separated)")
	}
	m.Classes = strings.Split(f.classes, ",")
	if f.layers != "" {
		ls, err := parseLayers(f.layers)
		if err != nil {
			return s, err
		}
		m.Layers = ls
	}
	if f.weightsFile != "" {
		b, err := os.ReadFile(f.weightsFile)
		if err != nil {
			return s, fmt.Errorf("-weights-file: %w", err)
		}
		sum := sha256.Sum256(b)
		got := hex.EncodeToString(sum[:])
		if f.weightsSHA != "" && f.weightsSHA != got {
			return s, fmt.Errorf("-weights-sha256 %s: -weights-file %s has %s", f.weightsSHA, f.weightsFile, got)
		}
		f.weightsSHA = got
	}
	if f.weightsURL != "" || f.weightsSHA != "" {
		m.Weights = &task.Weights{URL: f.weightsURL, SHA256: f.weightsSHA}
	}
	s.Model, s.Arch = m, ""
	if f.dataDir != "" || f.dataURL != "" {
		if f.dataDir == "" {
			return s, fmt.Errorf("-data-url: give -data too (the folder of the manifest it serves)")
		}
		datasetSet := false
		f.fs.Visit(func(fl *flag.Flag) { datasetSet = datasetSet || fl.Name == "dataset" })
		if datasetSet {
			return s, fmt.Errorf("-dataset %q: leave it out when -data names the task's own data set", s.Dataset)
		}
		b, err := os.ReadFile(filepath.Join(f.dataDir, taskarch.ManifestFile))
		if err != nil {
			return s, fmt.Errorf("-data: %w", err)
		}
		if _, err := data.ParseManifest(b); err != nil {
			return s, fmt.Errorf("-data %s: %w", f.dataDir, err)
		}
		sum := sha256.Sum256(b)
		s.Data, s.Dataset = &task.Data{Manifest: hex.EncodeToString(sum[:]), URL: f.dataURL}, ""
	}
	return s, nil
}

// parseLayers reads -layers: comma-separated TYPE[:field=value...].
func parseLayers(text string) ([]task.Layer, error) {
	var out []task.Layer
	for i, item := range strings.Split(text, ",") {
		parts := strings.Split(strings.TrimSpace(item), ":")
		l := task.Layer{Type: parts[0]}
		for _, kv := range parts[1:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("-layers item %d %q: %q is not field=value", i, item, kv)
			}
			var err error
			switch k {
			case "units":
				l.Units, err = strconv.Atoi(v)
			case "filters":
				l.Filters, err = strconv.Atoi(v)
			case "kernel":
				l.Kernel, err = strconv.Atoi(v)
			case "pad":
				l.Pad, err = strconv.Atoi(v)
			case "stride":
				l.Stride, err = strconv.Atoi(v)
			case "rate":
				l.Rate, err = strconv.ParseFloat(v, 64)
			default:
				return nil, fmt.Errorf("-layers item %d %q: unknown field %q (want units, filters, kernel, pad, stride or rate)", i, item, k)
			}
			if err != nil {
				return nil, fmt.Errorf("-layers item %d %q: %s=%q is not a number", i, item, k, v)
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// fieldWord matches a spec field as task's errors write it, e.g.
// "batch", "model.layers[2].kernel".
var fieldWord = regexp.MustCompile(`[a-z_0-9]+(?:\[\d+\])?(?:\.[a-z_0-9]+(?:\[\d+\])?)*`)

// flagOf appends the flag that sets the field a spec error names (the
// first word after "invalid spec:" that is a field), e.g.
// "task: invalid spec: batch 0: want 1 to 4096" -> "... (flag -batch)".
func flagOf(err error) error {
	_, rest, ok := strings.Cut(err.Error(), "invalid spec: ")
	if !ok {
		return err
	}
	for _, word := range fieldWord.FindAllString(rest, -1) {
		for f := indexes.ReplaceAllString(word, ""); f != ""; {
			if fl, ok := fieldFlag[f]; ok {
				return fmt.Errorf("%w (flag %s)", err, fl)
			}
			i := strings.LastIndex(f, ".")
			if i < 0 {
				break
			}
			f = f[:i]
		}
	}
	return err
}

var indexes = regexp.MustCompile(`\[\d+\]`)
