package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/peerlearn/peerlearn/engine/data"
)

func init() {
	register(&command{
		name:    "data",
		summary: "dataset statistics and a per-client partition table (sizes, label histograms, entropy)",
		run:     runData,
	})
}

func runData(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("data")
	dir := fs.String("data", defaultDataDir(), "data directory filled by `make data` (default $PEERLEARN_DATA, else .data)")
	name := fs.String("dataset", "mnist", "dataset: "+strings.Join(data.Names(), ", "))
	spec := fs.String("partition", "iid", "partition of the train set: iid, dirichlet:ALPHA, shards:K, zipf:S, each optionally +rotate:FRACTION (rotate:F alone is iid+rotate:F)")
	clients := fs.Int("clients", 10, "number of clients")
	seed := fs.Uint64("seed", 1, "partition seed (data.NewRand)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := data.ParseSpec(*spec)
	if err != nil {
		return fmt.Errorf("%w: -partition: %v", errUsage, err)
	}
	if *clients < 1 {
		return fmt.Errorf("%w: -clients %d: want >= 1", errUsage, *clients)
	}
	train, test, err := data.Load(os.DirFS(*dir), *name)
	if err != nil {
		if errors.Is(err, data.ErrUnknown) {
			return fmt.Errorf("%w: -dataset: %v", errUsage, err)
		}
		return fmt.Errorf("-data %s: %w", *dir, err)
	}
	shards, err := s.Split(train, *clients, data.NewRand(*seed))
	if err != nil {
		if errors.Is(err, data.ErrInvalid) {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		return err
	}
	printData(stdout, *name, train, test, s, *seed, shards)
	return nil
}

// defaultDataDir is $PEERLEARN_DATA, or .data (where `make data` puts it).
func defaultDataDir() string {
	if d := os.Getenv("PEERLEARN_DATA"); d != "" {
		return d
	}
	return ".data"
}

func printData(w io.Writer, name string, train, test *data.Dataset, s data.Spec, seed uint64, shards []data.Shard) {
	sh := train.Shape
	fmt.Fprintf(w, "dataset %s: %d train, %d test samples of %dx%dx%d, %d classes\n",
		name, train.Len(), test.Len(), sh[0], sh[1], sh[2], train.Classes)
	fmt.Fprintf(w, "train labels: %s (entropy %.3f bits)\n", counts(train.Hist()), data.Entropy(train.Hist()))
	fmt.Fprintf(w, "test labels:  %s (entropy %.3f bits)\n\n", counts(test.Hist()), data.Entropy(test.Hist()))
	fmt.Fprintf(w, "partition %s of the train set over %d clients, seed %d\n", s, len(shards), seed)

	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	header := []string{"client", "size", "rotated", "labels", "entropy"}
	for c := range train.Classes {
		header = append(header, strconv.Itoa(c))
	}
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	var minSize, maxSize, rotated int
	var sumEntropy float64
	for i, sh := range shards {
		row := []string{strconv.Itoa(i), strconv.Itoa(sh.Len()), yesNo(sh.Rotated), strconv.Itoa(sh.Labels()),
			strconv.FormatFloat(sh.Entropy(), 'f', 3, 64)}
		for _, n := range sh.Hist {
			row = append(row, strconv.Itoa(n))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		if i == 0 || sh.Len() < minSize {
			minSize = sh.Len()
		}
		maxSize = max(maxSize, sh.Len())
		sumEntropy += sh.Entropy()
		if sh.Rotated {
			rotated++
		}
	}
	tw.Flush()
	n := float64(len(shards))
	fmt.Fprintf(w, "\nsizes min %d, mean %.1f, max %d; mean label entropy %.3f bits (uniform %.3f); %d rotated\n",
		minSize, float64(train.Len())/n, maxSize, sumEntropy/n, data.Entropy(uniformCounts(train.Classes)), rotated)
}

func counts(h []int) string {
	s := make([]string, len(h))
	for i, n := range h {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, " ")
}

func uniformCounts(k int) []int {
	h := make([]int, k)
	for i := range h {
		h[i] = 1
	}
	return h
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "-"
}
