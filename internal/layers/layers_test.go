package layers

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/peerlearn/peerlearn"

// listImports runs go list over the whole module for one GOOS/GOARCH and
// build tags; test files' imports are left out (a test may use a harness
// from a higher layer, as overlay's tests use the overlaynet simulator).
func listImports(t *testing.T, env []string, tags string) map[string][]string {
	imports, _ := listPackages(t, env, tags)
	return imports
}

// listPackages is listImports, with each package's name.
func listPackages(t *testing.T, env []string, tags string) (map[string][]string, map[string]string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-tags", tags, "-f", "{{.ImportPath}} {{.Name}} {{join .Imports \" \"}}", module+"/...")
	cmd.Env = append(cmd.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports, names := map[string][]string{}, map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]], names[f[0]] = f[2:], f[1]
	}
	if len(imports) < 30 {
		t.Fatalf("go list found only %d packages", len(imports))
	}
	return imports, names
}

// TestPureStaysPure: no pure package (the peer core among them) imports
// the network, the file system, processes or signals, natively or as
// GOOS=js; and the check can fail.
func TestPureStaysPure(t *testing.T) {
	if !IsPure("peer/node") || !IsPure("peer/learn") || IsPure("peer/netpeer") || IsPure("peer/nodes") {
		t.Fatal("the peer core is not (alone) in a pure layer")
	}
	for _, env := range [][]string{nil, {"GOOS=js", "GOARCH=wasm"}} {
		imports, names := listPackages(t, env, "")
		if _, ok := imports[module+"/peer/node"]; !ok {
			t.Fatal("peer/node is not in the module")
		}
		for _, line := range CheckPure(module, imports, names) {
			t.Errorf("%v: %s", env, line)
		}
	}
	got := CheckPure(module, map[string][]string{
		module + "/peer/node":               {"time", "net/http"},
		module + "/peer/netpeer":            {"net"},
		module + "/engine/nn/internal/prog": {"os"},
	}, map[string]string{module + "/engine/nn/internal/prog": "main"})
	if len(got) != 1 || !strings.Contains(got[0], "peer/node is pure and imports net/http") {
		t.Fatalf("CheckPure found %q", got)
	}
}

// TestNoUpwardImports is the layering rule over the real tree, for the
// native build, the browser build and the libtorch build.
func TestNoUpwardImports(t *testing.T) {
	for _, b := range []struct {
		name string
		env  []string
		tags string
	}{
		{"native", nil, ""},
		{"js/wasm", []string{"GOOS=js", "GOARCH=wasm"}, ""},
		{"torch", nil, "torch"},
	} {
		for _, line := range Check(module, listImports(t, b.env, b.tags)) {
			t.Errorf("%s: %s", b.name, line)
		}
	}
}

// The check itself must be able to fail.
func TestCheckFindsViolations(t *testing.T) {
	got := Check(module, map[string][]string{
		module + "/engine/nn":        {module + "/internal/f32", "fmt"},
		module + "/protocol/mep":     {module + "/engine/aggregate", module + "/peer/rtc"},
		module + "/types/ident":      {module + "/sim/simnet"},
		module + "/newdir/thing":     {},
		module + "/sim/overlaynet":   {module + "/sim/simnet", module + "/protocol/overlay"},
		module + "/cmd/signalserver": {module + "/signal/server"},
	})
	want := []string{
		"newdir/thing: in no layer (add its directory to layers.byDir)",
		"protocol/mep (protocol) imports peer/rtc (peer), a higher layer",
		"types/ident (vocabulary) imports sim/simnet (simulators), a higher layer",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestOf(t *testing.T) {
	for rel, want := range map[string]Layer{
		"types/ident": Vocabulary, "engine/nn": Engine, "gpu": Engine, "protocol/overlay": Protocol,
		"signal/server": Protocol, "theory/initgain": Theory, "peer/rtc": Peer, "sim/dflsim": Simulators,
		"cmd/peerlearn": Edges, "wasm": Edges, "e2e/browser": Edges,
	} {
		if got, ok := Of(rel); !ok || got != want {
			t.Errorf("Of(%q) = %v %v, want %v", rel, got, ok, want)
		}
	}
}
