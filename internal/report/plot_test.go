package report

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLinePlotSavesPNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plots", "cf.png")
	p := LinePlot{Title: "convergence factor", XLabel: "d", YLabel: "c_G", LogY: true, Width: 5, Height: 3}
	p.Add("FedLay", []float64{4, 6, 8}, []float64{40, 12, 8})
	p.Add("Best", []float64{4, 6, 8}, []float64{38, 11, 7.5})
	p.Add("Chord", []float64{17}, []float64{60}) // a single dot
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	// gonum/plot renders PNG at 96 dpi by default: 5 × 3 inches.
	if b := img.Bounds(); b.Dx() != 480 || b.Dy() != 288 {
		t.Errorf("image %v, want 480 × 288", b)
	}
}

func TestLinePlotSavesSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.svg")
	p := LinePlot{Title: "t", LogX: true}
	p.Add("s", []float64{1, 10, 100}, []float64{0, -1, 2})
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("SVG not written: %v", err)
	}
}

func TestLinePlotRejectsBadData(t *testing.T) {
	dir := t.TempDir()
	for name, p := range map[string]LinePlot{
		"empty":             {},
		"unequal":           {Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1}}}},
		"no points":         {Series: []Series{{Name: "a"}}},
		"NaN":               {Series: []Series{{Name: "a", X: []float64{1}, Y: []float64{math.NaN()}}}},
		"Inf":               {Series: []Series{{Name: "a", X: []float64{math.Inf(1)}, Y: []float64{1}}}},
		"zero on log y":     {LogY: true, Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 0}}}},
		"negative on log x": {LogX: true, Series: []Series{{Name: "a", X: []float64{-1}, Y: []float64{1}}}},
	} {
		path := filepath.Join(dir, name+".png")
		if err := p.Save(path); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: file written despite the error", name)
		}
	}
	p := LinePlot{}
	p.Add("a", []float64{1}, []float64{1})
	if err := p.Save(filepath.Join(dir, "x.unknown")); err == nil {
		t.Error("unknown format accepted")
	}
}
