package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"

	"github.com/mdp/qrterminal/v3"
	"github.com/peerlearn/peerlearn/peer/node"
	"rsc.io/qr"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/protocol/task/taskarch"
)

func init() {
	register(&command{
		name:    "task new",
		summary: "write a task spec from flags (FedLay's MNIST setting by default), print it, its ID, join URL and QR code",
		run:     runTaskNew,
	})
	register(&command{
		name:    "task check",
		summary: "validate task spec files (spec and engine checks), print each ID",
		run:     runTaskCheck,
	})
	register(&command{
		name:    "task show",
		summary: "print a task spec file, its ID, model, join URL and QR code",
		run:     runTaskShow,
	})
}

// taskEngine is what `task` checks a spec with: the declared model's
// engine checks (taskarch; initial weights accepted, their form being
// checkable here) on top of the native peer's (netpeer). Whether this
// build's peer runs the spec is node.TaskEngine's alone, which showSpec
// reports.
var taskEngine = taskarch.Engine{Base: node.TaskEngine{}, AcceptWeights: true}

// checkSpec validates s with the engine, naming the flag of the field a
// spec error names when flags made it.
func checkSpec(s task.Spec, fromFlags bool) (task.Spec, error) {
	n, err := s.Normalized()
	if err == nil {
		err = n.ValidateFor(taskEngine)
	}
	if err != nil {
		if fromFlags {
			err = flagOf(err)
		}
		return task.Spec{}, err
	}
	return n, nil
}

// runTaskNew writes the spec the flags describe to -o (canonical JSON)
// and prints it as showSpec does.
func runTaskNew(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("task new")
	sf := newSpecFlags(fs)
	out := fs.String("o", "", "write the spec (canonical JSON) to this file")
	server := fs.String("server", "", "base URL of the page that joins tasks (e.g. https://host:8443/): print the join URL and its QR code")
	noQR := fs.Bool("no-qr", false, "print the join URL without its QR code")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if sf.s.Name == "" {
		return fmt.Errorf("%w: -name is required", errUsage)
	}
	s, err := sf.spec()
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	s, err = checkSpec(s, true)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *out != "" {
		b, err := s.Canonical()
		if err != nil {
			return err
		}
		if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return showSpec(stdout, s, *server, !*noQR)
}

// runTaskCheck validates each file (one spec or a JSON array of them)
// and prints one line per spec: "ok <id> <name> <model>".
func runTaskCheck(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("task check")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: name one or more spec files", errUsage)
	}
	bad := 0
	for _, path := range fs.Args() {
		specs, err := readSpecs(path)
		if err != nil {
			logf("%s: %v", path, err)
			bad++
			continue
		}
		for i, s := range specs {
			id, err := s.ID()
			if err != nil {
				logf("%s: spec %d: %v", path, i, err)
				bad++
				continue
			}
			fmt.Fprintf(stdout, "ok %s %s %s\n", id.Hex(), s.Name, modelSummary(s))
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of the files or specs refused", bad)
	}
	return nil
}

// runTaskShow prints each spec of a file as showSpec does.
func runTaskShow(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("task show")
	server := fs.String("server", "", "base URL of the page that joins tasks: print the join URL and its QR code")
	noQR := fs.Bool("no-qr", false, "print the join URL without its QR code")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: name one spec file", errUsage)
	}
	specs, err := readSpecs(fs.Arg(0))
	if err != nil {
		return err
	}
	for _, s := range specs {
		if err := showSpec(stdout, s, *server, !*noQR); err != nil {
			return err
		}
	}
	return nil
}

// readSpecs parses a spec file and checks every spec with the engine.
func readSpecs(path string) ([]task.Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	specs, err := task.ParseList(b)
	if err != nil {
		return nil, err
	}
	for i, s := range specs {
		if specs[i], err = checkSpec(s, false); err != nil {
			if len(specs) > 1 {
				return nil, fmt.Errorf("spec %d (%s): %w", i, s.Name, err)
			}
			return nil, err
		}
	}
	return specs, nil
}

// showSpec prints the spec (indented JSON), then
//
//	task id=<64 hex> name=<name> model=<arch> params=<n>
//	native peers refuse it: <why>   (only when node.TaskEngine does)
//	join <url>
//
// and the join URL's QR code (when server is set and qr).
func showSpec(w io.Writer, s task.Spec, server string, withQR bool) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	id, err := s.ID()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s\n", b)
	fmt.Fprintf(w, "task id=%s name=%s model=%s\n", id.Hex(), s.Name, modelSummary(s))
	if err := (node.TaskEngine{}).CheckSpec(s); err != nil {
		// The spec is valid, but this build's native peer does not run it.
		fmt.Fprintf(w, "native peers refuse it: %v\n", err)
	}
	if server == "" {
		return nil
	}
	join, err := joinURL(server, id.Hex())
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	fmt.Fprintf(w, "join %s\n", join)
	if withQR {
		qrterminal.GenerateHalfBlock(join, qr.M, w)
	}
	return nil
}

// modelSummary is "<arch string> params=<n>", e.g.
// "mlp 28x28x1 flatten dense(128) relu dense(10) ->10 params=101770".
func modelSummary(s task.Spec) string {
	a, err := taskarch.Arch(s)
	if err != nil {
		return "?"
	}
	n, _ := a.NumParams()
	return fmt.Sprintf("%q params=%d", a.String(), n)
}

// joinURL is the page at base with the task's ID as its "task" parameter,
// the one web/app.js reads.
func joinURL(base, id string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("-server %q: want an http or https URL, e.g. https://host:8443/", base)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	q := u.Query()
	q.Set("task", id)
	u.RawQuery = q.Encode()
	u.Fragment = ""
	return u.String(), nil
}
