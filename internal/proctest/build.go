package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// built holds the binaries of one test run: each is built once, however
// many tests (parallel ones included) ask for it.
var built struct {
	mu   sync.Mutex
	dir  string
	bins map[string]*binary
}

type binary struct {
	once sync.Once
	path string
	err  error
}

// Binary builds the main package pkg (a path as `go build` takes it,
// relative to the test's package directory) with the build tags into a
// folder of this test run's, once per name, and returns its path. A
// test that runs separate processes skips with -short. Call
// RemoveBinaries from TestMain when the tests are done.
func Binary(t testing.TB, name, pkg string, tags ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("separate-process test (-short)")
	}
	built.mu.Lock()
	if built.bins == nil {
		built.bins = map[string]*binary{}
	}
	b := built.bins[name]
	if b == nil {
		b = &binary{}
		built.bins[name] = b
	}
	if built.dir == "" {
		dir, err := os.MkdirTemp("", "proctest-bin-")
		if err != nil {
			built.mu.Unlock()
			t.Fatal(err)
		}
		built.dir = dir
	}
	dir := built.dir
	built.mu.Unlock()
	b.once.Do(func() {
		b.path = filepath.Join(dir, name)
		args := []string{"build", "-o", b.path}
		if len(tags) > 0 {
			args = append(args, "-tags", strings.Join(tags, ","))
		}
		out, err := exec.Command("go", append(args, pkg)...).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go %s: %v\n%s", strings.Join(append(args, pkg), " "), err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// RemoveBinaries deletes what Binary built.
func RemoveBinaries() {
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.dir != "" {
		os.RemoveAll(built.dir)
		built.dir, built.bins = "", nil
	}
}
