package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/sim/scenario"
)

// The report's arithmetic on made-up runs: one target per method (the
// float32 runs' mean last curve point less 2 points), the bytes ratio
// of the medians over the seeds of the bytes to it (a miss counting as
// infinite: a codec that missed in half the seeds scores 0), the gap the mean of the per-seed (paired)
// differences with its standard error, for the window's final and the
// end alone, and the best codec the highest worst-method ratio among
// those within 0.5 points.
func TestCompressionReport(t *testing.T) {
	cell := func(method, codec string, seed uint64, final float64, mb, acc []float64) compressionCell {
		b := make([]float64, len(mb))
		for i := range mb {
			b[i] = mb[i] * 1e6
		}
		return compressionCell{method: method, codec: codec, seed: seed, final: final, end: final, bytes: b, acc: acc}
	}
	// Target 0.80 - 0.02 = 0.78: float32's seed 1 ends at 0.82, seed 2
	// at 0.78 (a per-seed target would be out of seed 2's codecs' reach
	// at 0.80).
	cells := []compressionCell{
		cell("m", "f32", 1, 0.90, []float64{100, 200, 400}, []float64{0.5, 0.79, 0.82}),
		cell("m", "f32", 2, 0.90, []float64{100, 200, 400}, []float64{0.5, 0.70, 0.78}),
		// half the bytes to the same points (float32: 200 and 400 MB, mean
		// 300): ratio 2, gap 0.2 points
		cell("m", "half", 1, 0.898, []float64{50, 100, 200}, []float64{0.5, 0.79, 0.82}),
		cell("m", "half", 2, 0.898, []float64{50, 100, 200}, []float64{0.5, 0.70, 0.78}),
		// a quarter, but seed 2 never reaches 0.78: ratio 0
		cell("m", "quarter", 1, 0.90, []float64{25, 50, 100}, []float64{0.5, 0.79, 0.82}),
		cell("m", "quarter", 2, 0.90, []float64{25, 50, 100}, []float64{0.5, 0.70, 0.77}),
		// an eighth, 1 point lower: out of the 0.5 points
		cell("m", "eighth", 1, 0.89, []float64{12.5, 25, 50}, []float64{0.5, 0.79, 0.82}),
		cell("m", "eighth", 2, 0.89, []float64{12.5, 25, 50}, []float64{0.5, 0.70, 0.78}),
		// paired by seed: 0.4 and 0.0 points (mean 0.2, standard error
		// 0.2), where unpaired means would hide which seed lost; at the
		// end alone 1.0 and -0.6 (mean 0.2, standard error 0.8)
		cell("m", "paired", 1, 0.896, []float64{50, 100, 200}, []float64{0.5, 0.79, 0.82}),
		cell("m", "paired", 2, 0.90, []float64{50, 100, 200}, []float64{0.5, 0.70, 0.78}),
	}
	cells[len(cells)-2].end, cells[len(cells)-1].end = 0.89, 0.906
	var out bytes.Buffer
	o := scenario.Options{OutDir: t.TempDir(), Stdout: &out, Seed: 1}
	plan := compressionPlan{codecs: []string{"f32", "half", "quarter", "eighth", "paired"}, methods: []string{"m"}, seeds: 2, rounds: 16}
	line, err := compressionReport(o, "mnist", plan, cells)
	if err != nil {
		t.Fatal(err)
	}
	if want := "scenario=compression dataset=mnist best=half bytes_ratio=2.00 acc_gap=0.20 methods=m"; line != want {
		t.Errorf("summary %q, want %q\n%s", line, want, out.String())
	}
	for _, row := range []string{
		"last 4 of 16 rounds",
		"m        f32                0.9000    400.000        300.000    1.00     0.00   0.00     0.00   0.00",
		"m        quarter            0.9000    100.000   missed (1/2)    0.00     0.00   0.00     0.00   0.00",
		"m        eighth             0.8900     50.000         37.500    8.00     1.00   0.00     1.00   0.00",
		"m        paired             0.8980    200.000        150.000    2.00     0.20   0.20     0.20   0.80",
	} {
		if !strings.Contains(out.String(), row) {
			t.Errorf("no row %q in\n%s", row, out.String())
		}
	}
}

// A subset always runs float32, the reference, first; a bad key, codec,
// method or seed count is refused.
func TestCompressionSelect(t *testing.T) {
	p := compressionPlan{codecs: compressionCodecs, methods: compressionMethods, seeds: 5}
	if err := p.applySelect("codecs=delta-int4:64,f32 methods=dpsgd seeds=10"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.codecs, " ") != "f32 delta-int4:64" || strings.Join(p.methods, " ") != "dpsgd" || p.seeds != 10 || p.selected == "" {
		t.Errorf("plan %+v", p)
	}
	for _, bad := range []string{"codecs=f9", "codecs=f32", "methods=fedavg", "seeds=0", "seeds=x", "rounds=3", "codecs"} {
		p := compressionPlan{codecs: compressionCodecs, methods: compressionMethods, seeds: 5}
		if err := p.applySelect(bad); err == nil {
			t.Errorf("%q accepted: %+v", bad, p)
		}
	}
}

// The median of bytes to the target, a miss (NaN) counting as infinite:
// one miss in three seeds leaves it finite, two make it infinite, as
// does one in two.
func TestCensoredMedian(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		v    []float64
		want float64
	}{
		{[]float64{300, 100, 200}, 200},
		{[]float64{300, nan, 100}, 300},
		{[]float64{nan, nan, 100}, inf},
		{[]float64{100, 200}, 150},
		{[]float64{100, nan}, inf},
		{nil, inf},
	} {
		if got := censoredMedian(c.v); got != c.want {
			t.Errorf("censoredMedian(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}
