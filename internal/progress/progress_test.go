package progress

import (
	"bytes"
	"strings"
	"testing"
)

func TestBarPrintsBoundedPlainLines(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "train", 1000)
	for range 1000 {
		b.Add(1)
	}
	b.Finish()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	// One line per 10% step plus the final one: never one per unit.
	if len(lines) > 12 {
		t.Fatalf("%d lines for 1000 steps, want at most 12:\n%s", len(lines), buf.String())
	}
	last := lines[len(lines)-1]
	if !strings.Contains(last, "100%") || !strings.Contains(last, "1000/1000") {
		t.Fatalf("last line %q does not show completion", last)
	}
	if n := strings.Count(buf.String(), "100%"); n != 1 {
		t.Fatalf("the 100%% line is printed %d times, want once:\n%s", n, buf.String())
	}
	if strings.Contains(buf.String(), "\r") {
		t.Fatal("non-terminal output contains carriage returns")
	}
}

// No writer, no bar: New(nil) is nil and its methods do nothing.
func TestNilBar(t *testing.T) {
	b := New(nil, "x", 10)
	if b != nil {
		t.Fatalf("New(nil) = %v, want nil", b)
	}
	b.Add(1)
	b.Set(5, 0)
	b.Finish()
}
