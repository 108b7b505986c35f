package proc

import "testing"

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 4}
	for _, s := range []string{"ab", "cd", "e", "fghij", "k"} {
		b.Write([]byte(s))
	}
	if got := string(b.bytes()); got != "hijk" {
		t.Fatalf("tail %q", got)
	}
}
