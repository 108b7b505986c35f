package datadriven

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Cmd is one parsed command.
type Cmd struct {
	Name string
	Args []string          // bare words, in order
	KV   map[string]string // key=value arguments
	Line int               // line number in the script
	keys []string          // KV keys in the order written
}

// Has reports whether key=... was given.
func (c *Cmd) Has(key string) bool { _, ok := c.KV[key]; return ok }

// Get returns the value of key, or def if absent.
func (c *Cmd) Get(key, def string) string {
	if v, ok := c.KV[key]; ok {
		return v
	}
	return def
}

// String reconstructs the command line.
func (c *Cmd) String() string {
	parts := append([]string{c.Name}, c.Args...)
	for _, k := range c.keys {
		parts = append(parts, k+"="+c.KV[k])
	}
	return strings.Join(parts, " ")
}

type block struct {
	pre  []string // comments and blank lines before the command
	cmd  *Cmd
	line string // the command line as written
	want string
}

// parse splits a script into blocks; trailing text after the last
// command is returned separately.
func parse(path, text string) ([]block, []string, error) {
	lines := strings.Split(text, "\n")
	var blocks []block
	var pre []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			pre = append(pre, l)
			continue
		}
		cmd, err := parseCmd(t, i+1)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != "----" {
			return nil, nil, fmt.Errorf("%s:%d: command without ---- line", path, i+1)
		}
		i += 2
		var out []string
		for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			out = append(out, lines[i])
		}
		blocks = append(blocks, block{pre: pre, cmd: cmd, line: l, want: strings.Join(out, "\n")})
		pre = nil
		if i < len(lines) {
			pre = append(pre, lines[i]) // the blank line that ended the block
		}
	}
	return blocks, pre, nil
}

func parseCmd(line string, n int) (*Cmd, error) {
	f := strings.Fields(line)
	c := &Cmd{Name: f[0], KV: map[string]string{}, Line: n}
	for _, a := range f[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			if k == "" {
				return nil, fmt.Errorf("bad argument %q", a)
			}
			c.KV[k] = v
			c.keys = append(c.keys, k)
		} else {
			c.Args = append(c.Args, a)
		}
	}
	return c, nil
}

// Run executes the script at path. fn returns a command's output; it must
// not contain blank lines (an empty output is shown as "ok"). With
// rewrite the file is rewritten with the actual outputs.
func Run(t *testing.T, path string, rewrite bool, fn func(t *testing.T, c *Cmd) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks, tail, err := parse(path, string(data))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, bl := range blocks {
		got := strings.TrimRight(fn(t, bl.cmd), "\n")
		if got == "" {
			got = "ok"
		}
		for _, l := range strings.Split(got, "\n") {
			if strings.TrimSpace(l) == "" {
				t.Fatalf("%s:%d: %s: output has a blank line:\n%s", path, bl.cmd.Line, bl.line, got)
			}
		}
		if !rewrite && got != bl.want {
			t.Errorf("%s:%d: %s\n--- want\n%s\n--- got\n%s", path, bl.cmd.Line, bl.line, bl.want, got)
		}
		for _, l := range bl.pre {
			b.WriteString(l + "\n")
		}
		b.WriteString(bl.line + "\n----\n" + got + "\n")
	}
	for k, l := range tail {
		b.WriteString(l)
		if k < len(tail)-1 {
			b.WriteString("\n")
		}
	}
	if rewrite {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// RunGlob runs every script matching pattern (at least one must) as a
// subtest named by its file, each against a fresh handler from fresh: a
// script starts from nothing another script left.
func RunGlob(t *testing.T, pattern string, rewrite bool, fresh func() func(t *testing.T, c *Cmd) string) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts match %s: %v", pattern, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { Run(t, f, rewrite, fresh()) })
	}
}
