package nn_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/peerlearn/peerlearn/engine/nn/internal/detrun"
	"github.com/peerlearn/peerlearn/internal/f32"
)

const detSeed, detSteps = 7, 20

// TestNativeMatchesWebAssembly trains 20 seeded steps natively and as a
// GOOS=wasip1 module in wazero (the same code the browser build runs:
// pure-Go kernels, no SIMD). With f32's pure-Go kernels natively too, loss
// and parameters must be the same bits. With the accelerated kernels (FMA,
// another summation order) the MLP's loss must agree within 1e-6 relative.
// The CNN gets 1e-4: a last-bit difference can flip which input wins a
// max-pool window, an O(1) change to that gradient, and over 20 steps
// seeds 1-8 showed relative differences from 0 up to 6e-5.
func TestNativeMatchesWebAssembly(t *testing.T) {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("builds a wasip1 module with the go tool: needs a native host")
	}
	wasm := buildDetprog(t)
	got := runWasm(t, wasm)
	t.Logf("wasm:\n%s", got)

	defer f32.SetAccelerated(f32.SetAccelerated(false))
	pure, err := detrun.Run(detSeed, detSteps)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := detrun.Print(&want, pure); err != nil {
		t.Fatal(err)
	}
	if got != want.String() {
		t.Fatalf("pure-Go native and wasm differ:\nnative\n%swasm\n%s", want.String(), got)
	}

	if !f32.SetAccelerated(true) && !f32.Accelerated() {
		t.Log("no accelerated kernels on this machine: exact comparison only")
		return
	}
	accel, err := detrun.Run(detSeed, detSteps)
	if err != nil {
		t.Fatal(err)
	}
	tolerance := map[string]float64{"mlp": 1e-6, "small-cnn": 1e-4}
	for i, r := range accel {
		w := wasmLoss(t, got, i)
		rel := math.Abs(float64(r.Loss)-w) / math.Abs(w)
		t.Logf("%s: accelerated loss %.9g, wasm %.9g, relative difference %.2g", r.Arch, r.Loss, w, rel)
		if tol, ok := tolerance[r.Arch]; !ok || rel > tol {
			t.Errorf("%s: accelerated loss %.9g, wasm %.9g: relative difference %.2g > %g", r.Arch, r.Loss, w, rel, tol)
		}
	}
}

// buildDetprog compiles nn/internal/detprog for wasip1 and returns the module.
func buildDetprog(t *testing.T) []byte {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to build the wasip1 module")
	}
	out := filepath.Join(t.TempDir(), "detprog.wasm")
	cmd := exec.Command(goTool, "build", "-o", out, "./internal/detprog")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=wasip1 GOARCH=wasm go build ./internal/detprog: %v\n%s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runWasm runs the module in wazero and returns its standard output.
func runWasm(t *testing.T, wasm []byte) string {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	var stdout, stderr bytes.Buffer
	cfg := wazero.NewModuleConfig().WithStdout(&stdout).WithStderr(&stderr).
		WithArgs("detprog", "-seed", strconv.Itoa(detSeed), "-steps", strconv.Itoa(detSteps))
	_, err := r.InstantiateWithConfig(ctx, wasm, cfg)
	var exit *sys.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 0) {
		t.Fatalf("running detprog.wasm: %v\n%s", err, stderr.String())
	}
	return stdout.String()
}

// wasmLoss parses the loss of line i of detprog's output.
func wasmLoss(t *testing.T, out string, i int) float64 {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if i >= len(lines) {
		t.Fatalf("wasm output has %d lines, want line %d", len(lines), i)
	}
	f := strings.Fields(lines[i])
	if len(f) != 4 {
		t.Fatalf("wasm output line %q", lines[i])
	}
	bits, err := strconv.ParseUint(f[1], 16, 32)
	if err != nil {
		t.Fatal(err)
	}
	return float64(math.Float32frombits(uint32(bits)))
}
