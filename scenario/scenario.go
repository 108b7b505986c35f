// Package scenario holds the experiments `peerlearn sim train -scenario NAME`
// runs: each reproduces a figure or table of one of the papers, writes CSV
// and PNG files and ends with one summary line. Each scenario is one file
// that registers itself.
package scenario

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
)

// Options are what every scenario gets from the command line.
type Options struct {
	// Quick scales the scenario down to run in under two minutes here
	// (make test runs every scenario this way); the scale-down is printed.
	Quick bool
	// Seed seeds every random choice: the same seed gives the same run.
	Seed uint64
	// DataDir is the folder make data fills (PEERLEARN_DATA).
	DataDir string
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

// Lookup returns the scenario called name.
func Lookup(name string) (Scenario, error) {
	mu.Lock()
	defer mu.Unlock()
	s, ok := scenarios[name]
	if !ok {
		return Scenario{}, fmt.Errorf("%w: %q (have %v)", ErrUnknownScenario, name, namesLocked())
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
