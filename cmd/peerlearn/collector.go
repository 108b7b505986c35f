package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/peerlearn/peerlearn/engine/export"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/report"
	"github.com/peerlearn/peerlearn/peer/netpeer"
)

// collector keeps what `peerlearn collect` learns of a task in its
// folder: every model it evaluates is a row of progress.csv (time,
// round, neighbour, accuracy, loss) and replaces latest.plnn; one better
// than every earlier replaces best.plnn, best.safetensors and best.onnx;
// progress.png plots the accuracy over time per neighbour, redrawn after
// plotEvery models, then after a quarter more than were drawn (a plot's
// cost grows with its points: the redraws cost as much as a few final
// ones), and at the end. Memory holds the best model, the rows
// (at most -max-models) and nothing else; files are written whole
// (writeAside), so a reader never sees half of one.
type collector struct {
	dir     string
	task    *collectTask
	start   time.Time
	csv     *os.File
	w       *bufio.Writer
	rows    []progressRow
	n       int           // models evaluated
	plotAt  int           // progress.png is redrawn when n reaches it
	dropped atomic.Uint64 // models dropped: the evaluator was busy (the observer's goroutine counts), or not the task's
	best    progressRow
	bestP   []float32
	latest  progressRow
}

// progressRow is one evaluated model.
type progressRow struct {
	T        float64 // seconds since the collector started
	Round    int
	From     string // the neighbour's hex ID
	Accuracy float64
	Loss     float64
}

// plotEvery: progress.png is redrawn after this many models.
const plotEvery = 20

// maxPlotSeries bounds the curves in progress.png (the first neighbours
// seen; the CSV has every row).
const maxPlotSeries = 12

func newCollector(dir string) *collector {
	return &collector{dir: dir, start: time.Now(), best: progressRow{Accuracy: -1}, plotAt: plotEvery}
}

// take evaluates m and records it; an error is a write or evaluation
// failure that stops the collection.
func (c *collector) take(m netpeer.ObservedModel, now time.Time) error {
	ct := c.task
	if m.Arch != ct.tag || len(m.Params) != ct.params {
		c.dropped.Add(1) // the observer checked the length; the tag must be the task's too
		return nil
	}
	met, err := ct.eval.Evaluate(m.Params, ct.test.X[:ct.n*ct.test.Features()], ct.test.Y[:ct.n])
	if err != nil {
		return fmt.Errorf("evaluating %v's model: %w", m.From, err)
	}
	row := progressRow{T: now.Sub(c.start).Seconds(), Round: m.Round, From: m.From.Hex(), Accuracy: met.Accuracy, Loss: met.Loss}
	if err := c.appendRow(row); err != nil {
		return err
	}
	c.n++
	c.latest = row
	if _, err := c.writeModel("latest.plnn", ct.arch, m.Params); err != nil {
		return err
	}
	if row.Accuracy > c.best.Accuracy {
		c.best, c.bestP = row, m.Params
		if err := c.writeBest(ct.arch, m.Params); err != nil {
			return err
		}
	}
	if c.n >= c.plotAt {
		c.plotAt = c.n + max(plotEvery, c.n/4)
		return c.plot()
	}
	return nil
}

func (c *collector) appendRow(r progressRow) error {
	if c.csv == nil {
		f, err := os.Create(filepath.Join(c.dir, "progress.csv"))
		if err != nil {
			return err
		}
		c.csv, c.w = f, bufio.NewWriter(f)
		fmt.Fprintln(c.w, "time_s,round,neighbour,accuracy,loss")
	}
	fmt.Fprintf(c.w, "%.3f,%d,%s,%s,%s\n", r.T, r.Round, r.From, report.FormatCell(r.Accuracy), report.FormatCell(r.Loss))
	c.rows = append(c.rows, r)
	return c.w.Flush() // a row a model: the file follows the collection
}

// writeModel writes params in the engine's encoding.
func (c *collector) writeModel(name string, a nn.Arch, params []float32) (string, error) {
	sum, err := a.ShapeChecksum()
	if err != nil {
		return "", err
	}
	enc, err := nn.AppendEncoded(nil, a.Name, sum, params)
	if err != nil {
		return "", err
	}
	return writeAside(c.dir, name, enc)
}

// writeBest writes the best model as .plnn and in both export formats.
func (c *collector) writeBest(a nn.Arch, params []float32) error {
	if _, err := c.writeModel("best.plnn", a, params); err != nil {
		return err
	}
	for name, encode := range map[string]func(nn.Arch, []float32) ([]byte, error){"best.safetensors": export.Safetensors, "best.onnx": export.ONNX} {
		b, err := encode(a, params)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if _, err := writeAside(c.dir, name, b); err != nil {
			return err
		}
	}
	return nil
}

// plot draws progress.png: accuracy over time per neighbour.
func (c *collector) plot() error {
	if len(c.rows) == 0 {
		return nil
	}
	p := report.LinePlot{Title: "test accuracy of the neighbours' models", XLabel: "seconds", YLabel: "accuracy", LegendTop: false}
	var names []string
	series := map[string]*report.Series{}
	for _, r := range c.rows {
		s := series[r.From]
		if s == nil {
			if len(names) == maxPlotSeries {
				continue
			}
			names = append(names, r.From)
			s = &report.Series{Name: r.From[:8]}
			series[r.From] = s
		}
		s.X, s.Y = append(s.X, r.T), append(s.Y, r.Accuracy)
	}
	for _, n := range names {
		p.Add(series[n].Name, series[n].X, series[n].Y)
	}
	return p.Save(filepath.Join(c.dir, "progress.png"))
}

// finish draws the last plot and closes the CSV.
func (c *collector) finish() error {
	err := c.plot()
	if c.csv != nil {
		if cerr := c.csv.Close(); err == nil {
			err = cerr
		}
		c.csv = nil
	}
	return err
}

func (c *collector) close() {
	if c.csv != nil {
		c.csv.Close()
	}
}

// summary is the command's last line.
func (c *collector) summary() string {
	peers := map[string]bool{}
	for _, r := range c.rows {
		peers[r.From] = true
	}
	from := "none"
	if c.bestP != nil {
		from = c.best.From[:8]
	}
	return fmt.Sprintf("collect models=%d peers=%d dropped=%d best_acc=%.4f best_round=%d best_from=%s latest_acc=%.4f out=%s",
		c.n, len(peers), c.dropped.Load(), max(c.best.Accuracy, 0), c.best.Round, from, c.latest.Accuracy, c.dir)
}
