package task

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/protocol/mep"
)

func TestIDText(t *testing.T) {
	id, _ := golden().ID()
	b, err := json.Marshal(id)
	if err != nil || string(b) != `"`+goldenID+`"` {
		t.Fatalf("marshal: %s %v", b, err)
	}
	var back ID
	if err := json.Unmarshal(b, &back); err != nil || back != id {
		t.Fatalf("unmarshal: %v", err)
	}
	if p, err := ParseID(strings.ToUpper(goldenID)); err != nil || p != id {
		t.Fatalf("upper case: %v", err)
	}
	for _, bad := range []string{"", "ab", goldenID + "0", "zz" + goldenID[2:]} {
		if _, err := ParseID(bad); !errors.Is(err, ErrID) {
			t.Errorf("ParseID(%q): %v", bad, err)
		}
	}
	if id.String() != goldenID[:16] || id.IsZero() || !(ID{}).IsZero() {
		t.Fatal("String/IsZero")
	}
}

func TestTaskHash(t *testing.T) {
	id, _ := golden().ID()
	h := id.TaskHash()
	if FromTaskHash(h) != id || id.Check(h) != nil {
		t.Fatal("round trip")
	}
	if err := id.Check(mep.TaskHash{1}); !errors.Is(err, ErrMismatch) {
		t.Fatalf("mismatch: %v", err)
	}
}
