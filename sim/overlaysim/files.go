package overlaysim

import (
	"path/filepath"
	"strings"

	"github.com/peerlearn/peerlearn/internal/report"
)

// WriteTrace writes a recovery trace to dir/name.csv (every sample) and
// dir/name.png (correctness vs time since the event), and returns the
// paths.
func WriteTrace(dir, name, title string, tr Trace) ([]string, error) {
	header := []string{"t_s", "correctness", "correct", "expected", "extra", "wrong_slots", "live", "control_msgs", "heartbeats"}
	rows := make([][]any, len(tr.Samples))
	xs, ys := make([]float64, len(tr.Samples)), make([]float64, len(tr.Samples))
	for i, s := range tr.Samples {
		rows[i] = []any{s.T.Seconds(), s.Fraction(), s.Correct, s.Expected, s.Extra, s.WrongSlots, s.Live, s.Control, s.Heartbeats}
		xs[i], ys[i] = s.T.Seconds(), s.Fraction()
	}
	csv, png := filepath.Join(dir, name+".csv"), filepath.Join(dir, name+".png")
	if err := report.WriteCSV(csv, header, rows); err != nil {
		return nil, err
	}
	lp := report.LinePlot{Title: title, XLabel: "time since the event (s, virtual)", YLabel: "topology correctness"}
	lp.Add("FedLay (NDMP)", xs, ys)
	if err := lp.Save(png); err != nil {
		return nil, err
	}
	return []string{csv, png}, nil
}

// WriteBuilds writes the builds to dir/fig8c.csv and, for more than one
// size, dir/fig8c.png (messages per node vs n), and returns the paths.
func WriteBuilds(dir string, bs []Build) ([]string, error) {
	header := []string{"n", "correctness", "msgs_per_node", "heartbeats_per_node", "virtual_s"}
	for _, t := range buildTypes {
		header = append(header, strings.ToLower(t.String())+"_per_node")
	}
	rows := make([][]any, len(bs))
	var xs, ys []float64
	for i, b := range bs {
		rows[i] = []any{b.N, b.Fraction(), b.MsgsPerNode(), b.HeartbeatsPerNode(), b.Virtual.Seconds()}
		for _, t := range buildTypes {
			rows[i] = append(rows[i], float64(b.Sent[t])/float64(b.N))
		}
		xs, ys = append(xs, float64(b.N)), append(ys, b.MsgsPerNode())
	}
	csv := filepath.Join(dir, "fig8c.csv")
	if err := report.WriteCSV(csv, header, rows); err != nil {
		return nil, err
	}
	if len(bs) < 2 {
		return []string{csv}, nil
	}
	png := filepath.Join(dir, "fig8c.png")
	lp := report.LinePlot{Title: "Fig. 8c: NDMP messages per node to build the overlay", XLabel: "number of nodes", YLabel: "messages per node (no heartbeats)"}
	lp.Add("FedLay (NDMP)", xs, ys)
	if err := lp.Save(png); err != nil {
		return nil, err
	}
	return []string{csv, png}, nil
}
