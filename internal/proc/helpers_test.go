//go:build unix

package proc

import (
	"os/exec"
	"testing"
)

// startShell starts `sh -c script` as name, with o's other options (Prefix, Dir, LogPath, Lines, Keep), and
// kills it when the test ends.
func startShell(t *testing.T, name, script string, o Options) *Proc {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	o.Name, o.Bin, o.Args = name, sh, []string{"-c", script}
	p, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return p
}
