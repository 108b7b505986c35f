package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/task"
)

// runTask runs `peerlearn args...` and returns the exit status, stdout
// and the diagnostics.
func runTask(args ...string) (int, string, string) {
	var out, diag bytes.Buffer
	rc := run(context.Background(), args, &out, func(f string, a ...any) { fmt.Fprintf(&diag, f+"\n", a...) })
	return rc, out.String(), diag.String()
}

var idLine = regexp.MustCompile(`(?m)^task id=([0-9a-f]{64}) name=(\S+) model=`)

// TestTaskNewDefaults: `task new -name` is FedLay's MNIST setting; it
// prints the spec, its ID (the spec's own), the join URL with that ID and
// a QR code, and writes the canonical spec, which `task check` and `task
// show` read back to the same ID.
func TestTaskNewDefaults(t *testing.T) {
	file := filepath.Join(t.TempDir(), "spec.json")
	rc, out, diag := runTask("task", "new", "-name", "digits", "-o", file, "-server", "https://lab.example:8443/")
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, diag)
	}
	want := task.DefaultSpec()
	want.Name = "digits"
	id, err := want.ID()
	if err != nil {
		t.Fatal(err)
	}
	m := idLine.FindStringSubmatch(out)
	if m == nil || m[1] != id.Hex() || m[2] != "digits" {
		t.Fatalf("no task line with ID %s in\n%s", id.Hex(), out)
	}
	if !strings.Contains(out, "join https://lab.example:8443/?task="+id.Hex()+"\n") {
		t.Fatalf("no join URL in\n%s", out)
	}
	if !strings.Contains(out, "▄▄▄▄▄") || strings.Count(out, "\n") < 60 {
		t.Fatalf("no QR code in\n%s", out)
	}
	if strings.Contains(out, "native peers refuse") {
		t.Fatalf("the default spec is refused by native peers:\n%s", out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := want.Canonical()
	if string(b) != string(c)+"\n" {
		t.Fatalf("file\n%s\nwant\n%s", b, c)
	}
	rc, out, diag = runTask("task", "check", file)
	if rc != 0 || !strings.HasPrefix(out, "ok "+id.Hex()+" digits ") {
		t.Fatalf("task check: exit %d %q %s", rc, out, diag)
	}
	rc, out, _ = runTask("task", "show", "-no-qr", "-server", "http://127.0.0.1:8080", file)
	if rc != 0 || !strings.Contains(out, "task id="+id.Hex()) || !strings.Contains(out, "join http://127.0.0.1:8080/?task="+id.Hex()) || strings.Contains(out, "▄▄▄▄▄") {
		t.Fatalf("task show: exit %d\n%s", rc, out)
	}
}

// TestTaskNewEveryField: every key of the spec format (a declared model's
// included) has a flag, and each flag changes the spec it writes.
func TestTaskNewEveryField(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	newSpecFlags(fs)
	s := task.DefaultSpec()
	s.Name, s.Arch, s.Method, s.Codec = "x", "", "gossip", "int8"
	s.Admission = &task.Admission{Key: strings.Repeat("ab", 32), PoWBits: 1}
	s.Model = &task.Model{Input: []int{1, 2, 1}, Classes: []string{"a", "b"}, Preset: "mlp",
		Layers:  []task.Layer{{Type: "conv2d", Filters: 1, Kernel: 1, Pad: 1, Stride: 2, Rate: 1, Units: 1}},
		Weights: &task.Weights{URL: "u", SHA256: "s"}}
	s.Data = &task.Data{Manifest: "m", URL: "u"}
	b, _ := json.Marshal(s)
	var tree map[string]any
	if err := json.Unmarshal(b, &tree); err != nil {
		t.Fatal(err)
	}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, sub := range x {
				walk(strings.TrimPrefix(prefix+"."+k, "."), sub)
			}
			return
		case []any:
			if prefix == "model.layers" {
				walk(prefix+".", x[0]) // each layer field is set through -layers
				return
			}
		}
		name := prefix
		if strings.HasPrefix(name, "model.layers.") {
			name = "model.layers"
		}
		fl, ok := fieldFlag[name]
		if !ok {
			t.Errorf("spec field %s has no flag", prefix)
			return
		}
		if fs.Lookup(strings.TrimPrefix(fl, "-")) == nil {
			t.Errorf("spec field %s: flag %s is not defined", prefix, fl)
		}
	}
	walk("", tree)

	base := []string{"task", "new", "-no-qr", "-name", "x"}
	rc, out, diag := runTask(base...)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, diag)
	}
	defaultID := idLine.FindStringSubmatch(out)[1]
	for _, c := range [][]string{
		{"-dataset", "fashion-mnist"}, {"-codec", "delta-int4"}, {"-arch", "small-cnn"}, {"-aggregator", "mean"}, {"-batch", "64"},
		{"-local-epochs", "0", "-local-steps", "10"}, {"-max-peers", "50"}, {"-max-rounds", "7"},
		{"-method", "gossip", "-aggregator", "mean"}, {"-period-ms", "2000"}, {"-spaces", "3"}, {"-target-accuracy", "0.8"},
		{"-tiers"}, {"-init", "common", "-init-seed", "9"}, {"-init", "he-gain", "-init-gain", "2"},
		{"-optimizer", "adam", "-momentum", "0", "-lr", "0.001"}, {"-weight-decay", "0.001"},
		{"-partition", "iid"}, {"-parts", "10"}, {"-partition-seed", "3"},
		{"-method", "pens", "-aggregator", "mean", "-selection", "random", "-select-k", "3"}, {"-pow-bits", "4"},
		{"-admission-key", strings.Repeat("ab", 32)},
		{"-input", "28x28x1", "-classes", "0,1,2,3,4,5,6,7,8,9", "-preset", "small-cnn"},
		{"-input", "28x28x1", "-classes", "0,1,2,3,4,5,6,7,8,9", "-layers", "flatten,dense:units=10"},
		{"-input", "28x28x1", "-classes", "0,1,2,3,4,5,6,7,8,9", "-layers", "conv2d:filters=2:kernel=3:stride=2:pad=1,dropout:rate=0.5,dense:units=10",
			"-weights-url", "https://example.org/w", "-weights-sha256", strings.Repeat("0a", 32)},
	} {
		rc, out, diag := runTask(append(slices.Clone(base), c...)...)
		m := idLine.FindStringSubmatch(out)
		if rc != 0 || m == nil {
			t.Errorf("%v: exit %d: %s", c, rc, diag)
			continue
		}
		if m[1] == defaultID {
			t.Errorf("%v: the spec did not change", c)
		}
	}
}

// TestTaskNewRefuses: each bad flag is refused with the flag named.
func TestTaskNewRefuses(t *testing.T) {
	model := []string{"-input", "28x28x1", "-classes", "0,1,2,3,4,5,6,7,8,9"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, "-name is required"},
		{[]string{"-name", "Bad Name"}, "(flag -name)"},
		{[]string{"-name", "x", "-batch", "0"}, "(flag -batch)"},
		{[]string{"-name", "x", "-arch", "resnet"}, "(flag -arch)"},
		{[]string{"-name", "x", "-lr", "-1"}, "(flag -lr)"},
		{[]string{"-name", "x", "-partition", "nope"}, "(flag -partition)"},
		{[]string{"-name", "x", "-selection", "random", "-select-k", "0"}, "(flag -select-k)"},
		{[]string{"-name", "x", "-pow-bits", "99"}, "(flag -pow-bits)"},
		{[]string{"-name", "x", "-dataset", "cifar"}, "(flag -dataset)"},
		{[]string{"-name", "x", "-codec", "zip"}, "(flag -codec)"},
		{[]string{"-name", "x", "-input", "28x28"}, "-input"},
		{[]string{"-name", "x", "-input", "28x28x1"}, "-classes: required"},
		{append([]string{"-name", "x", "-arch", "mlp", "-preset", "mlp"}, model...), "-arch \"mlp\": leave it out"},
		{append([]string{"-name", "x"}, model...), "model.layers: empty"},
		{append([]string{"-name", "x", "-layers", "flatten,softmax"}, model...), "model.layers[1].type"},
		{append([]string{"-name", "x", "-layers", "flatten,dense:units"}, model...), "-layers item 1"},
		{append([]string{"-name", "x", "-layers", "dense:width=3"}, model...), "unknown field \"width\""},
		{append([]string{"-name", "x", "-layers", "dense:units=x"}, model...), "units=\"x\" is not a number"},
		// The engine's checks: the last layer gives 5 logits for 10 classes.
		{append([]string{"-name", "x", "-layers", "flatten,dense:units=5"}, model...), "(flag -layers)"},
		// 32x32x3 samples do not fit mnist.
		{[]string{"-name", "x", "-input", "32x32x3", "-classes", "a,b", "-layers", "flatten,dense:units=2"}, "model.input"},
		{append([]string{"-name", "x", "-layers", "flatten,dense:units=10", "-weights-url", "ftp://x/w", "-weights-sha256", strings.Repeat("0a", 32)}, model...), "(flag -weights-url)"},
		{append([]string{"-name", "x", "-layers", "flatten,dense:units=10", "-weights-url", "https://x/w", "-weights-file", "/nonexistent"}, model...), "-weights-file"},
		{[]string{"-name", "x", "-server", "ftp://x"}, "-server"},
	} {
		rc, _, diag := runTask(append([]string{"task", "new", "-no-qr"}, c.args...)...)
		if rc == 0 || !strings.Contains(diag, c.want) {
			t.Errorf("%v: exit %d, %q; want an error containing %q", c.args, rc, diag, c.want)
		}
	}
}

// TestTaskCheckRefuses: a bad file is refused with its name and reason;
// a declared model the native peer does not (yet) run says so in show.
func TestTaskCheckRefuses(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	s := task.DefaultSpec()
	s.Name = "x"
	c, _ := s.Canonical()
	if err := os.WriteFile(bad, bytes.Replace(c, []byte(`"batch":32`), []byte(`"batch":0`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	rc, _, diag := runTask("task", "check", bad)
	if rc == 0 || !strings.Contains(diag, "bad.json") || !strings.Contains(diag, "batch 0") {
		t.Fatalf("exit %d, %q", rc, diag)
	}
	if rc, _, diag := runTask("task", "check", filepath.Join(dir, "missing.json")); rc == 0 || !strings.Contains(diag, "missing.json") {
		t.Fatalf("missing file: exit %d, %q", rc, diag)
	}
	file := filepath.Join(dir, "declared.json")
	rc, _, diag = runTask("task", "new", "-no-qr", "-name", "d", "-o", file, "-input", "28x28x1", "-classes", "0,1,2,3,4,5,6,7,8,9",
		"-layers", "conv2d:filters=4:kernel=3,relu,avgpool2d:kernel=2,flatten,dropout:rate=0.2,dense:units=10")
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, diag)
	}
	rc, out, diag := runTask("task", "show", file)
	if rc != 0 || !strings.Contains(out, `model="d 28x28x1 conv2d(4,k3,s1,p0) relu avgpool2d(2) flatten dropout(0.2) dense(10) ->10" params=6810`) {
		t.Fatalf("show: exit %d %s\n%s", rc, diag, out)
	}
	// show says whether this build's native peer runs it, as the peer's
	// own check does.
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := task.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	refused := (node.TaskEngine{}).CheckSpec(spec) != nil
	if strings.Contains(out, "native peers refuse it") != refused {
		t.Fatalf("netpeer refuses: %v; show says\n%s", refused, out)
	}
}
