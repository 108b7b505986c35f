package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var topoLastLine = regexp.MustCompile(`^topology n=(\d+) d=(\d+) cf_fedlay=(\d+\.\d{4}) cf_best_rrg=(\d+\.\d{4}) ratio=(\d+\.\d{4})$`)

func runTopo(t *testing.T, cfg topoConfig) string {
	t.Helper()
	cfg.progress = io.Discard
	var out bytes.Buffer
	if err := simTopology(context.Background(), cfg, &out, t.Logf); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestSimTopologySmall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "out")
	cfg := topoConfig{n: 40, d: 16, trials: 3, seed: 5, out: dir}
	stdout := runTopo(t, cfg)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	last := lines[len(lines)-1]
	m := topoLastLine.FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("last line %q does not match %v", last, topoLastLine)
	}
	if m[1] != "40" || m[2] != "16" {
		t.Errorf("last line reports n=%s d=%s, want 40 and 16", m[1], m[2])
	}
	a, _ := strconv.ParseFloat(m[3], 64)
	b, _ := strconv.ParseFloat(m[4], 64)
	r, _ := strconv.ParseFloat(m[5], 64)
	if a < 1 || b < 1 || r <= 0 || (a/b-r) > 1e-3 || (r-a/b) > 1e-3 {
		t.Errorf("cf_fedlay=%v cf_best_rrg=%v ratio=%v: want cf >= 1 and ratio = cf_fedlay/cf_best_rrg", a, b, r)
	}

	// The table holds the Fig. 3 sweep 4..14 plus the requested 16.
	for _, d := range []string{"4", "6", "8", "10", "12", "14", "16"} {
		if !regexp.MustCompile(`(?m)^\s+` + d + `\s+\d`).MatchString(stdout) {
			t.Errorf("no table row for d=%s in\n%s", d, stdout)
		}
	}

	f, err := os.Open(filepath.Join(dir, "topology.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + 7*3 + 2; len(recs) != want { // header, 7 degrees × 3 graphs, ring, Chord
		t.Errorf("CSV has %d records, want %d", len(recs), want)
	}
	if recs[0][0] != "sweep_d" || recs[len(recs)-1][1] != "chord" {
		t.Errorf("CSV header %v, last row %v", recs[0], recs[len(recs)-1])
	}
	for _, name := range []string{"cf.png", "diameter.png", "asp.png"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s is not a PNG", name)
		}
	}
}

func TestSimTopologyDeterministic(t *testing.T) {
	cfg := topoConfig{n: 30, d: 6, trials: 4, seed: 9, out: t.TempDir()}
	first := runTopo(t, cfg)
	if again := runTopo(t, cfg); again != first {
		t.Errorf("same seed, different output:\n%s\nvs\n%s", first, again)
	}
	cfg.seed = 10
	if other := runTopo(t, cfg); other == first {
		t.Error("different seeds gave identical output")
	}
}

func TestSimTopologyRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-d", "5"},
		{"-d", "2"},
		{"-n", "10", "-d", "10"},
		{"-trials", "0"},
		{"extra"},
	} {
		argv := append([]string{"sim", "topology", "-out", t.TempDir()}, args...)
		if code := run(context.Background(), argv, io.Discard, t.Logf); code != 2 {
			t.Errorf("peerlearn %v: exit %d, want 2", argv, code)
		}
	}
}
