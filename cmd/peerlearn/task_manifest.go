package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/peerlearn/peerlearn/engine/data"
)

func init() {
	register(&command{
		name:    "task manifest",
		summary: "describe an image folder or CSV data set (files with sha256, shape, classes, normalisation) as DIR/manifest.json",
		run:     runTaskManifest,
	})
}

// runTaskManifest scans DIR (train/<class>/ and test/<class>/ images, or
// train.csv and test.csv), loads it once through the manifest to check
// every file, writes DIR/manifest.json and prints one line:
//
//	manifest format=csv input=1x16x1 classes=26 train=16000 test=4000 sha256=<hex> out=DIR/manifest.json
func runTaskManifest(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("task manifest")
	format := fs.String("format", "", "images (train/<class>/*.png|jpg, test/<class>/...) or csv (train.csv, test.csv)")
	input := fs.String("input", "", "sample shape HxWxC: images are resized to HxW, greyscale (C 1) or RGB (C 3); a CSV row has H*W*C numbers")
	label := fs.String("label", "", "csv: the label column's header")
	normalize := fs.String("normalize", "", "mean/std from the train set: channel, feature, or empty for none")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: name the data set's folder", errUsage)
	}
	dir := fs.Arg(0)
	var shape [3]int
	if n, err := fmt.Sscanf(*input, "%dx%dx%d", &shape[0], &shape[1], &shape[2]); err != nil || n != 3 {
		return fmt.Errorf("%w: -input %q: want HxWxC, e.g. 28x28x1", errUsage, *input)
	}
	if *normalize != "" && *normalize != "channel" && *normalize != "feature" {
		return fmt.Errorf("%w: -normalize %q: want channel, feature or nothing", errUsage, *normalize)
	}
	fsys := os.DirFS(dir)
	m, err := data.BuildManifest(fsys, *format, shape, *label)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	train, test, err := data.LoadManifest(fsys, m)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if *normalize != "" {
		if m.Normalize, err = data.NormalizeFrom(train, *normalize == "feature"); err != nil {
			return err
		}
	}
	b, err := m.Encode()
	if err != nil {
		return err
	}
	b = append(b, '\n')
	out := filepath.Join(dir, "manifest.json")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	sum := sha256.Sum256(b)
	fmt.Fprintf(stdout, "manifest format=%s input=%dx%dx%d classes=%d train=%d test=%d sha256=%s out=%s\n",
		m.Format, shape[0], shape[1], shape[2], len(m.Classes), train.Len(), test.Len(), hex.EncodeToString(sum[:]), out)
	return nil
}
