package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/proc"
	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	peernode "github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/protocol/task/taskarch"
)

// TestBenchOwner is `make bench-owner` (scripts/bench-owner.sh, which
// builds the binaries and sets BENCH_OWNER_BIN): the owner's path on
// loopback for each example task, a declared model on its own data (the
// letters CSV, Fashion-MNIST as PNG folders): the data's manifest
// (`task manifest`), a spec, bin/signalserver hosting it, 4 real peers
// (`peerlearn peer` processes over WebRTC, one IID quarter each), the
// collector (`peerlearn collect`, an observer) until every peer trained
// max_rounds and the collector holds a final model, `task export` of its
// best model to ONNX and safetensors, both checked in onnxruntime-node
// and torch (checkExternal, as TestExportExternal) on 1,000 test inputs,
// and the same declared model trained centrally for as many epochs as
// the peers had rounds. Ends with
//
//	bench-owner tasks=2 tabular_acc=T tabular_central=TC image_acc=I image_central=IC onnx_maxdiff=D torch_agree=A collect_best_acc=C
//
// (T, I: the peers' mean final test accuracy; C: the lower of the two
// collectors' best; D and A: the worse of the two tasks'), and with
// BENCH_SMOKE=1 runs 3 rounds on a few hundred images. Skipped unless
// BENCH_OWNER_BIN is set: it is a benchmark, minutes long.
func TestBenchOwner(t *testing.T) {
	bin := os.Getenv("BENCH_OWNER_BIN")
	if bin == "" {
		t.Skip("a benchmark: make bench-owner (scripts/bench-owner.sh)")
	}
	root := os.Getenv("PEERLEARN_DATA")
	if root == "" {
		t.Fatal("PEERLEARN_DATA not set")
	}
	node, python := exportTools(t)
	smoke := os.Getenv("BENCH_SMOKE") == "1"
	rounds, nTrain, nTest := declaredRounds, 6000, 1000
	if smoke {
		rounds, nTrain, nTest = 3, 800, 200
	}
	letters := filepath.Join(t.TempDir(), "letters")
	if err := os.MkdirAll(letters, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"train.csv", "test.csv"} {
		b, err := os.ReadFile(filepath.Join(root, "letters", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(letters, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fashion := filepath.Join(t.TempDir(), "fashion")
	ftrain, ftest, err := data.Load(os.DirFS(root), "fashion-mnist")
	if err != nil {
		t.Fatal(err)
	}
	writePNGFolder(t, fashion, "train", ftrain, nTrain)
	writePNGFolder(t, fashion, "test", ftest, nTest)

	tab := ownerTask(t, node, python, bin, "letters-owner", letters, rounds, lettersModel,
		"-format", "csv", "-input", "1x16x1", "-label", "letter", "-normalize", "feature")
	img := ownerTask(t, node, python, bin, "fashion-folder-owner", fashion, rounds, fashionFolderModel,
		"-format", "images", "-input", "20x20x1")
	for _, r := range []ownerResult{tab, img} {
		t.Logf("%s: peers %.4f (min %.4f), central %.4f, collector's best %.4f of %d models, onnx max |diff| %.3g, torch agreement %g",
			r.name, r.swarm, r.swarmMin, r.central, r.collectBest, r.collected, r.onnxDiff, r.torchAgree)
	}
	fmt.Printf("bench-owner tasks=2 tabular_acc=%.4f tabular_central=%.4f image_acc=%.4f image_central=%.4f onnx_maxdiff=%.2g torch_agree=%g collect_best_acc=%.4f\n",
		tab.swarm, tab.central, img.swarm, img.central, max(tab.onnxDiff, img.onnxDiff), min(tab.torchAgree, img.torchAgree), min(tab.collectBest, img.collectBest))
}

// ownerResult is one example task's numbers.
type ownerResult struct {
	name                     string
	swarm, swarmMin, central float64
	collectBest              float64
	collected                int
	onnxDiff, torchAgree     float64
}

// ownerPeers is how many real peers train each example task.
const ownerPeers = 4

// ownerTask runs the owner's path for the data in dir (manifest flags
// manifestArgs) and the declared model of model.
func ownerTask(t *testing.T, node, python, bin, name, dir string, rounds int, model func([]string) *task.Model, manifestArgs ...string) ownerResult {
	t.Helper()
	ctx := context.Background()
	var out bytes.Buffer
	if rc := run(ctx, append(append([]string{"task", "manifest"}, manifestArgs...), dir), &out, t.Logf); rc != 0 {
		t.Fatalf("task manifest: exit %d", rc)
	}
	mb, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := data.ParseManifest(mb)
	if err != nil {
		t.Fatal(err)
	}
	spec := task.DefaultSpec()
	spec.Name, spec.Arch, spec.Dataset = name, "", ""
	spec.Data = &task.Data{Manifest: proc.Field(out.String(), "sha256")}
	spec.Model = model(m.Classes)
	// As the simulated examples: IID quarters, one local epoch a round,
	// mean aggregation, a common initial model; max_rounds rounds.
	spec.Partition = task.Partition{Parts: ownerPeers, Seed: 1, Spec: "iid"}
	spec.Aggregator, spec.Init = "mean", task.Init{Mode: "common", Seed: 1}
	spec.Optimizer = task.Optimizer{Name: declaredOptimizer.Name, LR: float64(declaredOptimizer.LR), Momentum: float64(declaredOptimizer.Momentum)}
	spec.PeriodMS, spec.MaxRounds, spec.TargetAccuracy = 1500, rounds, 0.99
	if err := spec.ValidateFor(peernode.TaskEngine{}); err != nil {
		t.Fatal(err)
	}
	sb, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	specFile := filepath.Join(t.TempDir(), name+".json")
	if err := os.WriteFile(specFile, sb, 0o644); err != nil {
		t.Fatal(err)
	}
	train, test, err := taskarch.LoadData(os.DirFS(dir), spec)
	if err != nil {
		t.Fatal(err)
	}
	a, err := taskarch.For(spec, test.Shape, test.Classes)
	if err != nil {
		t.Fatal(err)
	}

	srv, addr := proctest.StartSignalServer(t, name+"-signal", filepath.Join(bin, "signalserver"), []string{"-no-web", "-task", specFile})
	defer srv.Stop(t)
	url := "ws://" + addr + "/signal"
	peers := make([]*proctest.Peer, ownerPeers)
	for i := range peers {
		peers[i] = proctest.StartPeer(t, filepath.Join(bin, "peerlearn"), fmt.Sprintf("%s-peer%d", name, i), []string{
			"peer", "-signal", url, "-task", specFile, "-data", dir, "-loopback", "-status", "127.0.0.1:0",
			"-shard", fmt.Sprintf("%d/%d", i, ownerPeers), "-eval-every", "1s", "-eval-samples", "0", "-every", "0"})
	}
	defer func() {
		var wg sync.WaitGroup
		for _, p := range peers {
			wg.Add(1)
			go func() { defer wg.Done(); p.Stop(t) }()
		}
		wg.Wait()
	}()

	// The collector, in this process, until the peers are done and it
	// holds a model of the last round.
	cout := filepath.Join(t.TempDir(), "collect")
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	var collectOut bytes.Buffer
	collected := make(chan error, 1)
	go func() {
		collected <- runCollect(cctx, []string{"-signal", url, "-task", specFile, "-data", dir, "-o", cout,
			"-loopback", "-duration", "30m", "-max-models", "100000", "-pull-every", "500ms"}, &collectOut, t.Logf)
	}()
	var sts []netpeer.Status
	proctest.WaitUntil(t, "every peer trained and evaluated max_rounds, the collector holds a final model", 20*time.Minute, 500*time.Millisecond, func() string {
		sts = sts[:0]
		for _, p := range peers {
			s, err := peerStatus(p.Status)
			if err != nil {
				return err.Error()
			}
			if s.Learn == nil || !s.Learn.Done || !s.Learn.EvalFinal || s.Learn.EvalRound < rounds {
				return fmt.Sprintf("%s: %+v", p.Name, s.Learn)
			}
			sts = append(sts, s)
		}
		if r := maxCollectedRound(cout); r < rounds {
			return fmt.Sprintf("the collector's latest round %d", r)
		}
		return ""
	})
	stop()
	if err := <-collected; err != nil {
		t.Fatalf("collect: %v\n%s", err, collectOut.String())
	}
	t.Log(strings.TrimSpace(collectOut.String()))
	res := ownerResult{name: name, swarmMin: 1}
	for _, s := range sts {
		res.swarm += s.Learn.Accuracy / ownerPeers
		res.swarmMin = min(res.swarmMin, s.Learn.Accuracy)
	}
	summary := collectOut.String()[strings.LastIndex(collectOut.String(), "collect models="):]
	res.collectBest, _ = strconv.ParseFloat(proc.Field(summary, "best_acc"), 64)
	res.collected, _ = strconv.Atoi(proc.Field(summary, "models"))

	// Export the collector's best model as a user would, and check both
	// files in the external runtimes.
	best := filepath.Join(cout, "best.plnn")
	files := map[string]string{}
	for _, format := range []string{"onnx", "safetensors"} {
		files[format] = filepath.Join(cout, "exported."+format)
		if rc := run(ctx, []string{"task", "export", "-spec", specFile, "-model", best, "-format", format, "-o", files[format]}, io.Discard, t.Logf); rc != 0 {
			t.Fatalf("task export -format %s: exit %d", format, rc)
		}
	}
	b, err := os.ReadFile(best)
	if err != nil {
		t.Fatal(err)
	}
	_, params, err := nn.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	nm, err := nn.NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := nm.SetParams(params); err != nil {
		t.Fatal(err)
	}
	k := min(1000, test.Len())
	res.onnxDiff, res.torchAgree = checkExternal(t, node, python, a, nm, test.X[:k*test.Features()], files["onnx"], files["safetensors"])
	res.central = trainCentral(t, a, train, test, rounds).Accuracy
	return res
}

// peerStatus reads a peer's /status.
func peerStatus(url string) (netpeer.Status, error) {
	var s netpeer.Status
	resp, err := http.Get(url)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

// maxCollectedRound is the highest round in a collector's progress.csv
// (-1: none yet).
func maxCollectedRound(dir string) int {
	f, err := os.Open(filepath.Join(dir, "progress.csv"))
	if err != nil {
		return -1
	}
	defer f.Close()
	rows, _ := csv.NewReader(f).ReadAll() // a row being written: the ones before count
	best := -1
	for _, r := range rows[min(1, len(rows)):] {
		if n, err := strconv.Atoi(r[1]); err == nil {
			best = max(best, n)
		}
	}
	return best
}
