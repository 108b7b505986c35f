package datadriven

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const script = `# a comment
echo hello world
----
hello world

add x=1 y=2
----
3

# trailing comment
`

func run(t *testing.T, path string, rewrite bool) {
	Run(t, path, rewrite, func(t *testing.T, c *Cmd) string {
		switch c.Name {
		case "echo":
			return strings.Join(c.Args, " ")
		case "add":
			if c.Get("x", "") == "1" && c.Get("y", "") == "2" && !c.Has("z") {
				return "3"
			}
		}
		return "?"
	})
}

func TestRunPassesAndRewritesInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.txt")
	os.WriteFile(path, []byte(script), 0o644)
	run(t, path, false)
	// Rewriting a passing script leaves it byte for byte the same.
	run(t, path, true)
	if got, _ := os.ReadFile(path); string(got) != script {
		t.Fatalf("rewrite changed a passing script:\n%s", got)
	}
	// A wrong expectation is rewritten to the actual output.
	os.WriteFile(path, []byte(strings.Replace(script, "\n3\n", "\n4\n", 1)), 0o644)
	run(t, path, true)
	if got, _ := os.ReadFile(path); string(got) != script {
		t.Fatalf("rewrite did not fix the output:\n%s", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{"cmd\nno separator\n", "cmd =v\n----\nok\n"} {
		if _, _, err := parse("x", bad); err == nil {
			t.Errorf("parse(%q) succeeded", bad)
		}
	}
	blocks, _, err := parse("x", script)
	if err != nil || len(blocks) != 2 || blocks[1].cmd.String() != "add x=1 y=2" || blocks[0].want != "hello world" {
		t.Fatalf("parse: %v %+v", err, blocks)
	}
}
