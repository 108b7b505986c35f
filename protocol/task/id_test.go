package task

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func TestIDText(t *testing.T) {
	id, _ := golden().ID()
	b, err := json.Marshal(id)
	if err != nil || string(b) != `"`+goldenID+`"` {
		t.Fatalf("marshal: %s %v", b, err)
	}
	var back ident.Task
	if err := json.Unmarshal(b, &back); err != nil || back != id {
		t.Fatalf("unmarshal: %v", err)
	}
	if p, err := ident.ParseTask(strings.ToUpper(goldenID)); err != nil || p != id {
		t.Fatalf("upper case: %v", err)
	}
	for _, bad := range []string{"", "ab", goldenID + "0", "zz" + goldenID[2:]} {
		if _, err := ident.ParseTask(bad); !errors.Is(err, ident.ErrTask) {
			t.Errorf("ParseID(%q): %v", bad, err)
		}
	}
	if id.String() != goldenID[:16] || id.IsZero() || !(ident.Task{}).IsZero() {
		t.Fatal("String/IsZero")
	}
}

func TestIDCheck(t *testing.T) {
	id, _ := golden().ID()
	if err := id.Check(id); err != nil {
		t.Fatalf("same task: %v", err)
	}
	if err := id.Check(ident.Task{1}); !errors.Is(err, ident.ErrTaskMismatch) {
		t.Fatalf("mismatch: %v", err)
	}
}
