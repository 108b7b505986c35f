package report

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one named curve of a LinePlot: points (X[i], Y[i]).
type Series struct {
	Name string
	X, Y []float64
}

// LinePlot is a line chart with markers at the data points, one colour,
// dash pattern and marker shape per series, and a legend. A series of one
// point shows as a single marker (a topology with a fixed degree, say).
type LinePlot struct {
	Title, XLabel, YLabel string
	// LogX and LogY switch the axis to a log scale; every value on it
	// must then be > 0.
	LogX, LogY bool
	// LegendTop and LegendLeft place the legend in that corner of the
	// data area; the zero value puts it bottom right.
	LegendTop, LegendLeft bool
	// Width and Height are in inches; zero means 6 × 4.
	Width, Height float64
	Series        []Series
}

// Add appends a series.
func (p *LinePlot) Add(name string, x, y []float64) {
	p.Series = append(p.Series, Series{Name: name, X: x, Y: y})
}

// Save renders the plot to path, in the format its extension names
// (.png, .svg, .pdf, ...), creating the directory if needed. It rejects
// an empty plot, series with unequal X and Y lengths, NaN or infinite
// values and non-positive values on a log axis.
func (p *LinePlot) Save(path string) error {
	if err := p.check(); err != nil {
		return fmt.Errorf("report: %s: %w", path, err)
	}
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text = p.XLabel
	pl.Y.Label.Text = p.YLabel
	if p.LogX {
		pl.X.Scale, pl.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if p.LogY {
		pl.Y.Scale, pl.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	pl.Add(plotter.NewGrid())
	pl.Legend.Top, pl.Legend.Left = p.LegendTop, p.LegendLeft
	args := make([]any, 0, 2*len(p.Series))
	for _, s := range p.Series {
		xys := make(plotter.XYs, len(s.X))
		for i := range xys {
			xys[i].X, xys[i].Y = s.X[i], s.Y[i]
		}
		args = append(args, s.Name, xys)
	}
	if err := plotutil.AddLinePoints(pl, args...); err != nil {
		return fmt.Errorf("report: %s: %w", path, err)
	}
	w, h := p.Width, p.Height
	if w <= 0 {
		w = 6
	}
	if h <= 0 {
		h = 4
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	wt, err := pl.WriterTo(vg.Length(w)*vg.Inch, vg.Length(h)*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("report: %s: %w", path, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return fmt.Errorf("report: %s: %w", path, err)
	}
	return writeFile(path, buf.Bytes())
}

func (p *LinePlot) check() error {
	if len(p.Series) == 0 {
		return errors.New("no series to plot")
	}
	for _, s := range p.Series {
		if len(s.X) != len(s.Y) || len(s.X) == 0 {
			return fmt.Errorf("series %q: %d x values, %d y values", s.Name, len(s.X), len(s.Y))
		}
		for i := range s.X {
			x, y := s.X[i], s.Y[i]
			if bad(x) || bad(y) {
				return fmt.Errorf("series %q: point %d is (%v, %v)", s.Name, i, x, y)
			}
			if (p.LogX && x <= 0) || (p.LogY && y <= 0) {
				return fmt.Errorf("series %q: point %d (%v, %v) on a log axis", s.Name, i, x, y)
			}
		}
	}
	return nil
}

func bad(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
