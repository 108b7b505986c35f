package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// flagDefaults runs the command with -h and returns each flag's default
// as its usage prints it.
func flagDefaults(t *testing.T) map[string]string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SIGNALSERVER_TEST_MAIN=1", "SIGNALSERVER_TEST_ARGS=-h")
	out, _ := cmd.CombinedOutput() // -h exits non-zero
	defaults := map[string]string{}
	name := ""
	for _, line := range strings.Split(string(out), "\n") {
		if m := regexp.MustCompile(`^  -([a-z0-9-]+)`).FindStringSubmatch(line); m != nil {
			name = m[1]
		}
		if m := regexp.MustCompile(`\(default "?([^")]*)"?\)\s*$`).FindStringSubmatch(line); m != nil && name != "" {
			defaults[name] = m[1]
		}
	}
	if len(defaults) < 10 {
		t.Fatalf("parsed %d flag defaults from -h:\n%s", len(defaults), out)
	}
	return defaults
}

// The docs state flag defaults as "`-flag`, VALUE by default"; each must
// be the command's. DEPLOY.md said `-turn-ttl` was 12 h when the code
// had made it 10 minutes.
func TestDocsStateFlagDefaults(t *testing.T) {
	defaults := flagDefaults(t)
	stated := regexp.MustCompile("`-([a-z0-9-]+)`, ([^ ,;)]+) by default")
	seen := map[string]bool{}
	for _, doc := range []string{"../../docs/DEPLOY.md", "../../docs/SECURITY.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range stated.FindAllStringSubmatch(string(b), -1) {
			name, value := m[1], m[2]
			seen[name] = true
			def, ok := defaults[name]
			if !ok {
				t.Errorf("%s: -%s has no default (or is no flag)", doc, name)
				continue
			}
			if !sameValue(value, def) {
				t.Errorf("%s: -%s is %s by default, the command's is %s", doc, name, value, def)
			}
		}
	}
	if !seen["turn-ttl"] {
		t.Errorf("DEPLOY.md does not state -turn-ttl's default as \"`-turn-ttl`, VALUE by default\"")
	}
}

// sameValue compares a stated default with the usage's, as durations
// where both are.
func sameValue(stated, def string) bool {
	a, errA := time.ParseDuration(stated)
	b, errB := time.ParseDuration(def)
	if errA == nil && errB == nil {
		return a == b
	}
	return stated == def
}
