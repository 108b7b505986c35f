package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var overlayLines = map[string]*regexp.Regexp{
	"join":      regexp.MustCompile(`^overlay n=(\d+) join=(\d+) correctness=(\d\.\d{3}) converge_s=(\d+\.\d{2})$`),
	"fail":      regexp.MustCompile(`^overlay n=(\d+) fail=(\d+) correctness=(\d\.\d{3}) recover_s=(\d+\.\d{2})$`),
	"failhold":  regexp.MustCompile(`^overlay n=(\d+) fail=(\d+) correctness=(\d\.\d{3}) recover_s=(\d+\.\d{2}) held_correct=(\d\.\d{3})$`),
	"build":     regexp.MustCompile(`^overlay build n=(\d+) correctness=(\d\.\d{3}) msgs_per_node=(\d+\.\d)$`),
	"partition": regexp.MustCompile(`^overlay partition n=(\d+) cut_s=(\d+) merged=([01]) merge_s=(\d+\.\d{2}) msgs_per_node_min=(\d+)->(\d+)$`),
	"scale":     regexp.MustCompile(`^overlay scale n=(\d+) correctness=(\d\.\d{3}) build_wall_s=(\d+\.\d) churn_recover_s=(\d+\.\d{2}) peak_mem_mb=(\d+)$`),
}

// runOverlay runs `sim overlay args` with output in a temporary
// directory and returns stdout's lines.
func runOverlay(t *testing.T, args ...string) (lines []string, dir string) {
	t.Helper()
	dir = t.TempDir()
	cfg, err := parseOverlay(append(args, "-out", dir))
	if err != nil {
		t.Fatal(err)
	}
	cfg.progress = io.Discard
	var out bytes.Buffer
	if err := simOverlay(context.Background(), cfg, &out, t.Logf); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out.String())
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"), dir
}

// TestSimOverlayModes: each mode at a small size ends with its result
// line, reaches correctness 1.000, writes its files, and repeats exactly
// for the same seed.
func TestSimOverlayModes(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		args  []string
		files []string
		// want are the submatches that must hold (index: value).
		want map[int]string
	}{
		{"join", []string{"-n", "60", "-join", "15"}, []string{"fig8a.csv", "fig8a.png"}, map[int]string{1: "60", 2: "15", 3: "1.000"}},
		{"fail", []string{"-n", "60", "-fail", "15"}, []string{"fig8b.csv", "fig8b.png"}, map[int]string{1: "60", 2: "15", 3: "1.000"}},
		{"failhold", []string{"-n", "60", "-fail", "15", "-hold", "10s"}, []string{"fig8b.csv"}, map[int]string{1: "60", 2: "15", 3: "1.000", 5: "1.000"}},
		{"build", []string{"-build", "40"}, []string{"fig8c.csv"}, map[int]string{1: "40", 2: "1.000"}},
		{"build", []string{"-build", "40", "-sweep"}, []string{"fig8c.csv", "fig8c.png"}, map[int]string{1: "40", 2: "1.000"}},
		{"scale", []string{"-scale", "100"}, []string{"scale.csv", "scale.png"}, map[int]string{1: "100", 2: "1.000"}},
		{"partition", []string{"-n", "40", "-partition", "5s"}, []string{"partition.csv", "partition.png"}, map[int]string{1: "40", 2: "5", 3: "1"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append(tc.args, "-seed", "3", "-quiet")
			lines, dir := runOverlay(t, args...)
			last := lines[len(lines)-1]
			m := overlayLines[tc.mode].FindStringSubmatch(last)
			if m == nil {
				t.Fatalf("last line %q does not match %v", last, overlayLines[tc.mode])
			}
			for i, v := range tc.want {
				if m[i] != v {
					t.Errorf("last line %q: field %d is %s, want %s", last, i, m[i], v)
				}
			}
			for _, f := range tc.files {
				if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v", f, err)
				}
			}
			again, _ := runOverlay(t, args...)
			a, b := last, again[len(again)-1]
			if tc.mode == "scale" { // wall time and memory vary: compare the rest
				drop := regexp.MustCompile(` (build_wall_s|peak_mem_mb)=\S+`)
				a, b = drop.ReplaceAllString(a, ""), drop.ReplaceAllString(b, "")
			}
			if a != b {
				t.Errorf("same seed, different results:\n%s\n%s", a, b)
			}
		})
	}
}

func TestSimOverlaySweepLines(t *testing.T) {
	lines, _ := runOverlay(t, "-build", "20", "-sweep", "-quiet")
	var ns []string
	for _, l := range lines {
		if m := overlayLines["build"].FindStringSubmatch(l); m != nil {
			ns = append(ns, m[1])
			if m[2] != "1.000" {
				t.Errorf("%q: not correct", l)
			}
		}
	}
	if got := strings.Join(ns, ","); got != "2,4,6,8,10,12,14,16,18,20" {
		t.Errorf("sweep sizes %s", got)
	}
}

func TestSimOverlayUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-n", "400"},
		{"-join", "10", "-fail", "10"},
		{"-build", "10", "-scale", "100"},
		{"-join", "-3"},
		{"-fail", "400"},
		{"-n", "1", "-join", "1"},
		{"-build", "1"},
		{"-build", "10", "-sweep"},
		{"-scale", "100", "-churn", "0"},
		{"-scale", "100", "-churn", "1"},
		{"-join", "10", "-dist", "pareto"},
		{"-join", "10", "-latency", "-1s"},
		{"-join", "10", "-latency", "fast"},
		{"-join", "10", "-spaces", "0"},
		{"-join", "10", "-every", "0s"},
		{"-join", "10", "-table-every", "0s"},
		{"-join", "10", "extra"},
		{"-partition", "-5s"},
		{"-fail", "10", "-hold", "-1s"},
		{"-partition", "5s", "-n", "3"},
		{"-partition", "5s", "-fail", "3"},
		{"-bogus"},
	} {
		args := append([]string{"sim", "overlay"}, args...)
		if code := run(context.Background(), args, io.Discard, func(string, ...any) {}); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}
