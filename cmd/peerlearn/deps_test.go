package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/peerlearn/peerlearn"

// What `peerlearn` links: the peer runtime (`peerlearn peer` is the same
// peer the browser tab runs), the engine, and the signalling server (the
// demos host one in-process).
var peerlearnRequired = []string{
	module + "/peer/netpeer",
	module + "/peer/rtc",
	module + "/peer/learn",
	module + "/engine/nn",
	module + "/signal/server",
	"github.com/pion/webrtc/v4",
}

// peerlearnDeps lists what the package in this directory links under the
// build tags: import path to whether it has cgo files. cgo is on, so
// that files importing "C" are listed as such.
func peerlearnDeps(t *testing.T, tags string) map[string]bool {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-tags", tags, "-f", "{{.ImportPath}} {{len .CgoFiles}}", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps -tags %q: %v\n%s", tags, err, out)
	}
	m := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, n, _ := strings.Cut(line, " ")
		m[path] = n != "0"
	}
	return m
}

// Without the torch tag the binary links the pure-Go engine only: no
// package of the module has cgo files (the libtorch shim is gpu's
// backend_torch.go, built with -tags torch by `make companion`). With the
// tag it does link the shim, so the check above can fail.
func TestPeerlearnDeps(t *testing.T) {
	got := peerlearnDeps(t, "")
	for _, r := range peerlearnRequired {
		if _, ok := got[r]; !ok {
			t.Errorf("peerlearn does not link %s", r)
		}
	}
	for d, cgo := range got {
		if cgo && strings.HasPrefix(d, module+"/") {
			t.Errorf("peerlearn without -tags torch links %s, which has cgo files (the libtorch shim)", d)
		}
	}
	torch := peerlearnDeps(t, "torch")
	if !torch[module+"/gpu"] {
		t.Errorf("peerlearn with -tags torch does not link gpu's cgo shim")
	}
	t.Logf("%d packages (%d with -tags torch)", len(got), len(torch))
}

// peerlearnFiles lists the Go files of the module's packages the package
// in this directory links under the build tags, as "importpath/file".
func peerlearnFiles(t *testing.T, tags string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-tags", tags, "-f", `{{range .GoFiles}}{{$.ImportPath}}/{{.}}{{"\n"}}{{end}}`, ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps -tags %q: %v\n%s", tags, err, out)
	}
	var files []string
	for _, f := range strings.Fields(string(out)) {
		if strings.HasPrefix(f, module+"/") {
			files = append(files, f)
		}
	}
	return files
}

// The Byzantine peer of the end-to-end attack test (netpeer's attack.go,
// which scales and sign-flips the models a peer sends, and
// attack_blind.go, which sends engine/attack's adaptive models) is built
// only with -tags attack: a plain peerlearn does not link them. With the
// tag it does, so the check can fail. engine/attack itself is the attack
// lab's too (`peerlearn lab` runs sim/dflsim's adaptive attacks on
// virtual time): in a plain peerlearn only sim/ packages import it, so no
// peer sends what it makes.
func TestPeerlearnLinksNoAttack(t *testing.T) {
	attack := []string{module + "/peer/netpeer/attack.go", module + "/peer/netpeer/attack_blind.go"}
	plain := peerlearnFiles(t, "")
	tagged := peerlearnFiles(t, "attack")
	for _, f := range attack {
		if slices.Contains(plain, f) {
			t.Errorf("peerlearn without -tags attack links %s", f)
		}
		if !slices.Contains(tagged, f) {
			t.Errorf("peerlearn with -tags attack does not link %s", f)
		}
	}
	if !slices.Contains(plain, module+"/peer/netpeer/learn.go") {
		t.Errorf("peerlearn does not link netpeer's learner: the check above proves nothing")
	}
	search := module + "/engine/attack"
	for _, tags := range []string{"", "attack"} {
		var outside []string
		for _, p := range peerlearnImporters(t, tags, search) {
			if !strings.HasPrefix(p, module+"/sim/") {
				outside = append(outside, p)
			}
		}
		switch {
		case tags == "" && len(outside) > 0:
			t.Errorf("peerlearn without -tags attack: %v import %s (only the lab, sim/, may)", outside, search)
		case tags == "attack" && !slices.Contains(outside, module+"/peer/netpeer"):
			t.Errorf("peerlearn with -tags attack: netpeer does not import %s (importers outside sim/: %v)", search, outside)
		}
	}
}

// peerlearnImporters lists the packages the package in this directory
// links under the build tags that import pkg.
func peerlearnImporters(t *testing.T, tags, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-tags", tags, "-f", `{{$.ImportPath}}{{range .Imports}} {{.}}{{end}}`, ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps -tags %q: %v\n%s", tags, err, out)
	}
	var importers []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && slices.Contains(f[1:], pkg) {
			importers = append(importers, f[0])
		}
	}
	return importers
}
