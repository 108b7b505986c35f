package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/sim/scenario"
)

func init() {
	register(&command{
		name:    "sim train",
		summary: "run a paper-reproduction scenario with many peers in one process",
		run:     runSimTrain,
	})
}

func runSimTrain(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("sim train")
	name := fs.String("scenario", "", "scenario to run (-list to see them)")
	list := fs.Bool("list", false, "list the scenarios and exit")
	quick := fs.Bool("quick", false, "scaled-down run (under two minutes); the scale-down is printed")
	seed := fs.Uint64("seed", 1, "random seed: the same seed gives the same run")
	n := fs.Int("n", 0, "number of peers, for the scenarios that take it (-list shows which; 0: the scenario's own)")
	dataset := fs.String("dataset", "", "data set to learn, mnist or fashion-mnist (default mnist), for the scenarios that learn one (-list shows which)")
	dataDir := fs.String("data", defaultDataDir(), "dataset folder filled by `make data` (env PEERLEARN_DATA)")
	out := fs.String("out", "", "folder for CSV and PNG files (default out/<scenario>)")
	quiet := fs.Bool("quiet", false, "no progress bars")
	specFile := fs.String("spec", "", "instead of a scenario: run this task spec file (method gossip, dpsgd, pens or plexus, with max_rounds) on -n peers as its real peers run it (shard K of N each, the overlay's neighbours)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *specFile != "" {
		return runSimSpec(ctx, *specFile, *n, *dataDir, stdout, logf)
	}
	if *list {
		for _, s := range scenario.All() {
			size := ""
			if s.MinN > 0 {
				size = fmt.Sprintf(" [-n %d..%d]", s.MinN, s.MaxN)
			}
			if s.Data {
				size += " [-dataset]"
			}
			fmt.Fprintf(stdout, "%-16s %s%s\n", s.Name, s.Summary, size)
		}
		return nil
	}
	if *name == "" {
		return fmt.Errorf("%w: -scenario is required (-list to see them)", errUsage)
	}
	s, err := scenario.Lookup(*name)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *out == "" {
		*out = filepath.Join("out", s.Name)
	}
	var progressW io.Writer = os.Stderr
	if *quiet {
		progressW = io.Discard
	}
	if *n < 0 || (*n > 0 && (s.MinN == 0 || *n < s.MinN || *n > s.MaxN)) {
		return fmt.Errorf("%w: -n %d: scenario %s takes %s", errUsage, *n, s.Name, sizeWords(s.MinN, s.MaxN))
	}
	line, err := s.Run(ctx, scenario.Options{
		Quick: *quick, Seed: *seed, N: *n, DataDir: *dataDir, Dataset: *dataset, OutDir: *out,
		Stdout: stdout, Progress: progressW, Logf: logf,
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, strings.TrimSpace(line))
	return nil
}

// sizeWords says which -n a scenario takes.
func sizeWords(minN, maxN int) string {
	if minN == 0 {
		return "no -n (its size is fixed)"
	}
	return fmt.Sprintf("-n from %d to %d", minN, maxN)
}

// runSimSpec is `sim train -spec FILE -n N`; it prints
// "sim method=M peers=N acc=A" (and precision=P for PENS).
func runSimSpec(ctx context.Context, file string, n int, dir string, stdout io.Writer, logf func(string, ...any)) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	spec, err := task.ParseFor(b, node.TaskEngine{})
	if err != nil {
		return err
	}
	if n < 2 || spec.MaxRounds < 1 {
		return fmt.Errorf("%w: -spec needs -n >= 2 and a spec with max_rounds", errUsage)
	}
	out, err := simSpec(ctx, spec, n, dir, nil, nil, logf)
	if err != nil {
		return err
	}
	line := fmt.Sprintf("sim method=%s peers=%d acc=%.4f", spec.MethodOf(), n, out.acc)
	if spec.MethodOf() == "pens" {
		line += fmt.Sprintf(" precision=%.3f", out.precision)
	}
	fmt.Fprintln(stdout, line)
	return nil
}
