package scenario

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"

	"github.com/peerlearn/peerlearn/engine/data"
)

// Options are what every scenario gets from the command line.
type Options struct {
	// Quick scales the scenario down to run in under two minutes here
	// (make test runs every scenario this way); the scale-down is printed.
	Quick bool
	// Seed seeds every random choice: the same seed gives the same run.
	Seed uint64
	// N, if not 0, sets the number of peers of a scenario that has a
	// MinN (others refuse it with ErrSize).
	N int
	// DataDir is the folder make data fills (PEERLEARN_DATA).
	DataDir string
	// Dataset is the data set a scenario with Scenario.Data learns
	// ("mnist" or "fashion-mnist", data.Names); "" is "mnist". A scenario
	// without data refuses any other than "" (ErrDataset).
	Dataset string
	// OutDir receives the CSV and PNG files.
	OutDir string
	// Stdout receives tables; the summary line is printed by the caller.
	Stdout io.Writer
	// Progress receives progress bars (io.Discard to hide them).
	Progress io.Writer
	// Logf receives diagnostics.
	Logf func(format string, args ...any)
}

// Scenario is one experiment.
type Scenario struct {
	Name    string
	Summary string
	// MinN, if not 0, says the scenario takes Options.N peers (MinN to
	// MaxN); 0 means its size is fixed.
	MinN, MaxN int
	// Data says the scenario learns Options.Dataset; a scenario without
	// (a topology study) refuses a Dataset.
	Data bool
	// Run performs the experiment and returns its summary line, e.g.
	// "scenario=vsteady rrg_exponent=0.50 ba_exponent=0.62".
	Run func(ctx context.Context, o Options) (string, error)
}

var (
	mu        sync.Mutex
	scenarios = map[string]Scenario{}
)

// Register adds a scenario; it panics on a duplicate name (a programming
// error caught at init).
func Register(s Scenario) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := scenarios[s.Name]; dup {
		panic(fmt.Sprintf("scenario %q registered twice", s.Name))
	}
	scenarios[s.Name] = s
}

// size returns o.N, or def when o.N is 0; it refuses an N outside
// [min, max] (or any N when min is 0).
func (o Options) size(def, min, max int) (int, error) {
	switch {
	case o.N == 0:
		return def, nil
	case min == 0:
		return 0, fmt.Errorf("%w: this scenario's size is fixed (-n %d)", ErrSize, o.N)
	case o.N < min || o.N > max:
		return 0, fmt.Errorf("%w: -n %d, want %d to %d", ErrSize, o.N, min, max)
	}
	return o.N, nil
}

// dataset returns the data set to learn: Options.Dataset, "mnist" if
// unset.
func (o Options) dataset() string {
	if o.Dataset == "" {
		return "mnist"
	}
	return o.Dataset
}

// checkDataset refuses, before any work, a data set the engine does not
// have and any data set for a scenario that learns none.
func (o Options) checkDataset(scenario string, usesData bool) error {
	switch {
	case o.Dataset == "":
		return nil
	case !usesData:
		return fmt.Errorf("%w: scenario %s learns no data set (-dataset %s)", ErrDataset, scenario, o.Dataset)
	case !slices.Contains(data.Names(), o.Dataset):
		return fmt.Errorf("%w: %q (have %v)", ErrDataset, o.Dataset, data.Names())
	}
	return nil
}

// sized makes the Run of a scenario of def peers that takes -n from min
// to max (min 0: its size is fixed).
func sized(def, min, max int, run func(ctx context.Context, o Options, n int) (string, error)) func(context.Context, Options) (string, error) {
	return func(ctx context.Context, o Options) (string, error) {
		n, err := o.size(def, min, max)
		if err != nil {
			return "", err
		}
		return run(ctx, o, n)
	}
}

// Lookup returns the scenario called name.
func Lookup(name string) (Scenario, error) {
	mu.Lock()
	defer mu.Unlock()
	s, ok := scenarios[name]
	if !ok {
		return Scenario{}, fmt.Errorf("%w: %q (have %v)", ErrUnknownScenario, name, namesLocked())
	}
	fixed, run, usesData := s.MinN == 0, s.Run, s.Data
	s.Run = func(ctx context.Context, o Options) (string, error) {
		if fixed { // a fixed size: refuse Options.N before any work
			if _, err := o.size(0, 0, 0); err != nil {
				return "", err
			}
		}
		if err := o.checkDataset(name, usesData); err != nil {
			return "", err
		}
		return run(ctx, o)
	}
	return s, nil
}

// All returns every scenario sorted by name.
func All() []Scenario {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Scenario, 0, len(scenarios))
	for _, s := range scenarios {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Scenario) int {
		if a.Name < b.Name {
			return -1
		}
		return 1
	})
	return out
}

func namesLocked() []string {
	names := make([]string, 0, len(scenarios))
	for n := range scenarios {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
