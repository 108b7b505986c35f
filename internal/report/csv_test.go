package report

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "out.csv")
	rows := [][]any{
		{"ring", 2, 0.1, math.Inf(1)},
		{"with, comma", int64(-3), float32(0.5), math.NaN()},
		{"x", true, 1e-300, math.Inf(-1)},
	}
	if err := WriteCSV(path, []string{"name", "k", "v", "w"}, rows); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"name", "k", "v", "w"},
		{"ring", "2", "0.1", "+Inf"},
		{"with, comma", "-3", "0.5", "NaN"},
		{"x", "true", "1e-300", "-Inf"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("read back %q, want %q", got, want)
	}
}

func TestWriteCSVRejectsRaggedRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv")
	if err := WriteCSV(path, []string{"a", "b"}, [][]any{{1, 2}, {3}}); err == nil {
		t.Error("ragged row accepted")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("file written despite the error: %v", err)
	}
}
