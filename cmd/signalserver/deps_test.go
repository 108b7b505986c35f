package main

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/peerlearn/peerlearn"

// The signalling server introduces peers and relays their signalling; it
// hosts task specs but never trains. It must link none of the training
// engine (the task spec package holds the spec, its canonical form and
// ID only) and none of the peer side.
var forbidden = []string{
	module + "/engine/", // nn, data, aggregate
	module + "/internal/f32",
	module + "/gpu",
	module + "/peer/",
	module + "/sim/",
	module + "/theory/",
	"github.com/pion/webrtc/", // peers' WebRTC; the server speaks only TURN
	"gonum.org/v1/plot",
}

// What the server is made of.
var required = []string{
	module + "/signal/server",
	module + "/protocol/task",
	module + "/types/partition", // the partition grammar the task ID hashes
	"github.com/pion/turn/v5",   // the optional TURN relay
}

// deps lists what the package in this directory links: import path to
// whether it has cgo files.
func deps(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{len .CgoFiles}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	m := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, n, _ := strings.Cut(line, " ")
		m[path] = n != "0"
	}
	return m
}

// matches says whether package d is pattern p: p itself or, for a p
// ending in "/", anything under it, else p or a package under p.
func matches(d, p string) bool {
	if strings.HasSuffix(p, "/") {
		return strings.HasPrefix(d, p)
	}
	return d == p || strings.HasPrefix(d, p+"/")
}

func TestSignalServerDeps(t *testing.T) {
	got := deps(t)
	for d, cgo := range got {
		for _, f := range forbidden {
			if matches(d, f) {
				t.Errorf("the signalling server links %s (forbidden: %s)", d, f)
			}
		}
		if cgo && strings.HasPrefix(d, module+"/") {
			t.Errorf("the signalling server links %s, which has cgo files", d)
		}
	}
	for _, r := range required {
		if _, ok := got[r]; !ok {
			t.Errorf("the signalling server does not link %s", r)
		}
	}
	t.Logf("%d packages", len(got))
}

// The check can fail: the rules catch what they name.
func TestDepsRules(t *testing.T) {
	for _, c := range []struct {
		d, p string
		want bool
	}{
		{module + "/engine/nn", module + "/engine/", true},
		{module + "/engineering", module + "/engine/", false},
		{module + "/gpu", module + "/gpu", true},
		{module + "/gpux", module + "/gpu", false},
		{"github.com/pion/webrtc/v4", "github.com/pion/webrtc/", true},
		{"gonum.org/v1/plot/vg", "gonum.org/v1/plot", true},
	} {
		if got := matches(c.d, c.p); got != c.want {
			t.Errorf("matches(%q, %q) = %v, want %v", c.d, c.p, got, c.want)
		}
	}
}
