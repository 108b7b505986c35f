package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"text/tabwriter"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/sim/dflsim"
)

// A study is the one shape of every scenario's experiment, so that each
// scenario file holds only what is its own:
//
//   - describe loads what the study needs and prints what it will run
//     (the scale-down of -quick included);
//   - run runs the compared methods and keeps their results;
//   - report prints the results, writes the CSV and PNG files and
//     returns what it wrote (for the "wrote" line, "" for none) and the
//     summary line.
//
// runStudy drives the three in this order.
type study interface {
	describe(o Options, out io.Writer) error
	run(ctx context.Context, o Options) error
	report(o Options, out io.Writer) (wrote, summary string, err error)
}

// runStudy runs s, prints "wrote ... (N s)" after its report and returns
// its summary line.
func runStudy(ctx context.Context, o Options, s study) (string, error) {
	start := time.Now()
	out := o.Stdout
	if out == nil {
		out = io.Discard
	}
	if err := s.describe(o, out); err != nil {
		return "", err
	}
	if err := s.run(ctx, o); err != nil {
		return "", err
	}
	wrote, summary, err := s.report(o, out)
	if err != nil {
		return "", err
	}
	if wrote != "" {
		fmt.Fprintf(out, "  wrote %s (%.0f s)\n", wrote, time.Since(start).Seconds())
	}
	return summary, nil
}

// onPool runs f on a worker pool of one job per core, with nn's kernels
// single-threaded meanwhile (the pool already keeps every core busy).
func onPool(f func(pool *dflsim.Pool) error) error {
	prev := f32.SetThreads(1)
	defer f32.SetThreads(prev)
	pool := dflsim.NewPool(0)
	defer pool.Close()
	return f(pool)
}

// newTable starts a results table with its header line (tab-separated
// columns); Flush prints it.
func newTable(out io.Writer, header string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	return tw
}

// loadDataset reads the data set o names ("mnist", "fashion-mnist";
// "mnist" if unset) from the data directory; a missing one is ErrNoData.
func loadDataset(o Options) (train, test *data.Dataset, err error) {
	train, test, err = data.Load(os.DirFS(o.DataDir), o.dataset())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %w", ErrNoData, err)
	}
	if err == nil && afterLoad != nil {
		err = afterLoad(train, test)
	}
	return train, test, err
}

// afterLoad, if not nil, sees every data set a scenario loads, and its
// error ends the run: nil in every shipped binary; a test sets it to
// check which set the -dataset flag made the scenario load, and stops
// the scenario there.
var afterLoad func(train, test *data.Dataset) error

// mustParams is the architecture's parameter count (0 if invalid).
func mustParams(a nn.Arch) int {
	n, _ := a.NumParams()
	return n
}

// firstN is 0..n-1.
func firstN(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}
