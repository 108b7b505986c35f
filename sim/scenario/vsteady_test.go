package scenario

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func runQuickVSteady(t *testing.T, dir string) (string, string) {
	t.Helper()
	s, err := Lookup("vsteady")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	line, err := s.Run(context.Background(), Options{Quick: true, Seed: 1, OutDir: dir, Stdout: &out, Progress: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return line, out.String()
}

func TestVSteadyQuick(t *testing.T) {
	dir := t.TempDir()
	line, table := runQuickVSteady(t, dir)
	m := regexp.MustCompile(`^scenario=vsteady rrg_exponent=(\d+\.\d+) ba_exponent=(\d+\.\d+)$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("summary line %q is malformed", line)
	}
	rrg, _ := strconv.ParseFloat(m[1], 64)
	ba, _ := strconv.ParseFloat(m[2], 64)
	if rrg < 0.45 || rrg > 0.55 {
		t.Errorf("random-regular exponent %v, want within 0.05 of 0.5", rrg)
	}
	// BA hubs make ‖v‖ ∝ √(ln n/n): apparent exponent below 1/2.
	if ba < 0.38 || ba > 0.48 {
		t.Errorf("Barabási–Albert exponent %v, want in [0.38, 0.48]", ba)
	}
	for _, want := range []string{"fit ‖v‖ = C·n^-α", "σ model (Sec. 4.2)", "gossip (push-sum", "quick:"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	rows := map[string]int{"vsteady.csv": 1 + 5*6, "vsteady_fit.csv": 1 + 5, "sigma_model.csv": 1 + 2*31, "gossip.csv": 1 + 5}
	for name, want := range rows {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(string(data), "\n"); got != want {
			t.Errorf("%s has %d lines, want %d", name, got, want)
		}
	}
	for _, name := range []string{"vsteady.png", "sigma_model_rrg32.png", "sigma_model_ba2.png"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("\x89PNG")) {
			t.Errorf("%s is not a PNG", name)
		}
	}
	// The same seed gives the same numbers.
	dir2 := t.TempDir()
	line2, _ := runQuickVSteady(t, dir2)
	a, _ := os.ReadFile(filepath.Join(dir, "vsteady.csv"))
	b, _ := os.ReadFile(filepath.Join(dir2, "vsteady.csv"))
	if line2 != line || !bytes.Equal(a, b) {
		t.Error("two runs with seed 1 differ")
	}
}

func TestVSteadyErrors(t *testing.T) {
	s, _ := Lookup("vsteady")
	if _, err := s.Run(context.Background(), Options{Quick: true}); err == nil {
		t.Error("empty output folder accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Run(ctx, Options{Quick: true, OutDir: t.TempDir()}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v, want context.Canceled", err)
	}
}
