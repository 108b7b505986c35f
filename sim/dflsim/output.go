package dflsim

import (
	"github.com/peerlearn/peerlearn/internal/report"
)

// Series is one named run's measurements.
type Series struct {
	Name   string
	Points []Point
}

// WriteCSV writes the series to path, one row per point: losses and
// accuracies (mean, min, max across the measured peers) and the per-peer
// means of the traffic and training counters.
func WriteCSV(path string, series []Series) error {
	header := []string{"series", "round", "time_s", "peers", "loss_mean", "loss_min", "loss_max",
		"acc_mean", "acc_min", "acc_max", "model_bytes_sent", "control_bytes_sent", "model_bytes_received",
		"control_bytes_received", "samples_trained"}
	var rows [][]any
	for _, s := range series {
		for _, p := range s.Points {
			rows = append(rows, []any{s.Name, p.Round, p.Time, p.Peers, p.Loss.Mean, p.Loss.Min, p.Loss.Max,
				p.Acc.Mean, p.Acc.Min, p.Acc.Max, p.ModelBytes, p.ControlBytes, p.ModelBytesIn, p.ControlBytesIn, p.Samples})
		}
	}
	return report.WriteCSV(path, header, rows)
}

// Plot draws y(point) against x(point) for every series to path (PNG,
// SVG or PDF by extension); layout gives the title, the axis labels and
// scales and the legend's corner (its Series are ignored).
func Plot(path string, layout report.LinePlot, series []Series, x, y func(Point) float64) error {
	pl := layout
	pl.Series = nil
	for _, s := range series {
		xs := make([]float64, len(s.Points))
		ys := make([]float64, len(s.Points))
		for i, p := range s.Points {
			xs[i], ys[i] = x(p), y(p)
		}
		if len(xs) > 0 {
			pl.Add(s.Name, xs, ys)
		}
	}
	return pl.Save(path)
}

// Accessors for Plot.
var (
	ByRound  = func(p Point) float64 { return p.Round }
	ByTime   = func(p Point) float64 { return p.Time }
	MeanAcc  = func(p Point) float64 { return 100 * p.Acc.Mean }
	MeanLoss = func(p Point) float64 { return p.Loss.Mean }
)
