package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

// command is one subcommand, named by one or more words ("sim overlay").
type command struct {
	name    string
	summary string
	// run gets the arguments after the name; stdout is for results, logf
	// for progress and diagnostics.
	run func(ctx context.Context, args []string, stdout io.Writer, logf func(format string, args ...any)) error
}

var commands []*command

func register(c *command) { commands = append(commands, c) }

// errUsage marks an error that is the caller's to fix: exit status 2.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	os.Exit(run(ctx, os.Args[1:], os.Stdout, logf))
}

func run(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) int {
	c, rest := lookup(args)
	if c == nil {
		usage(os.Stderr, args)
		if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
			return 0
		}
		return 2
	}
	if err := c.run(ctx, rest, stdout, logf); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		logf("peerlearn %s: %v", c.name, err)
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

// lookup finds the command whose name is the longest prefix of args.
func lookup(args []string) (*command, []string) {
	var best *command
	for _, c := range commands {
		words := strings.Fields(c.name)
		if len(words) <= len(args) && slices.Equal(words, args[:len(words)]) {
			if best == nil || len(words) > len(strings.Fields(best.name)) {
				best = c
			}
		}
	}
	if best == nil {
		return nil, nil
	}
	return best, args[len(strings.Fields(best.name)):]
}

func usage(w io.Writer, args []string) {
	if len(args) > 0 && args[0] != "help" && args[0] != "-h" && args[0] != "--help" {
		fmt.Fprintf(w, "peerlearn: unknown command %q\n\n", strings.Join(args, " "))
	}
	fmt.Fprintln(w, "usage: peerlearn COMMAND [flags]\n\ncommands:")
	cs := slices.Clone(commands)
	slices.SortFunc(cs, func(a, b *command) int { return strings.Compare(a.name, b.name) })
	for _, c := range cs {
		fmt.Fprintf(w, "  %-16s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'peerlearn COMMAND -h' for a command's flags.")
}

// newFlags returns a FlagSet for a command that reports errors instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("peerlearn "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}

// parseFlags parses args, wrapping a bad flag as a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	return nil
}
