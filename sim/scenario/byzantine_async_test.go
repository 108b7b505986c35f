package scenario

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestByzantineAsyncQuick: the lab's asynchronous mode runs the real
// peer's neighbourhood check (peer/learn) on peers exchanging by MEP,
// reports its false alarms, keeps a "+suspend" rule's drift test on
// (aggregate.DriftConfig.Async; a peer turns it off otherwise, and
// nothing would be left out) and reports what it left out, and the
// peers learn: one order at quick size (a mechanism, not the lab's
// numbers, which take 8 orders).
func TestByzantineAsyncQuick(t *testing.T) {
	out := byzQuick(t, "f=0 async=1 rules=clipped-fedlay+health,keepshare-fedlay+suspend orders=1 healthref=best patience=1")
	if !strings.Contains(out, "async=1: the peers exchange models asynchronously by MEP") {
		t.Errorf("the setting is not printed:\n%s", out)
	}
	acc := func(rule string) float64 {
		t.Helper()
		m := regexp.MustCompile(`(?m)^byzantine f=0 seed=1 attack=none rule=` + regexp.QuoteMeta(rule) + ` honest_acc=(\d\.\d+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no row for %s in:\n%s", rule, out)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	plain, checked, suspending := acc("fedlay"), acc("clipped-fedlay+health"), acc("keepshare-fedlay+suspend")
	if plain < 0.6 || checked < 0.6 || suspending < 0.6 {
		t.Errorf("asynchronous peers learned to %.3f (fedlay), %.3f (clipped-fedlay+health) and %.3f (keepshare-fedlay+suspend): want >= 0.6 (MNIST, 20 medium periods)", plain, checked, suspending)
	}
	if m := regexp.MustCompile(`rule=keepshare-fedlay\+suspend honest_acc=\S+ left_out_per_round=(\d+\.\d+) `).FindStringSubmatch(out); m == nil {
		t.Errorf("no left_out_per_round for the suspending rule:\n%s", out)
	} else if v, _ := strconv.ParseFloat(m[1], 64); v == 0 || v > 1 {
		t.Errorf("the drift test left out %s neighbour models per peer and round asynchronously: want some (it runs) and at most one (no attack)", m[1])
	}
	m := regexp.MustCompile(`rule=clipped-fedlay\+health honest_acc=\S+ health_alarms=(\d\.\d+) health_moves=0 `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no false alarms (health_alarms) reported for the checked rule, or it moved peers:\n%s", out)
	}
	if a, _ := strconv.ParseFloat(m[1], 64); a > 0.5 {
		t.Errorf("the check found %.0f%% of the honest peers captured without attack: want at most half", 100*a)
	}
}

// byzQuick runs the attack lab at quick size, seed 1, on the subset
// selected (PEERLEARN_BYZ_SELECT), and returns its printed report and
// per-cell rows (Logf) together, logged.
func byzQuick(t *testing.T, selected string) string {
	t.Helper()
	t.Setenv(byzSelectEnv, selected)
	s, err := Lookup("byzantine")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer // the lab writes its report and rows from one goroutine
	logf := func(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }
	if _, err := s.Run(context.Background(), Options{Quick: true, Seed: 1, DataDir: dataDir(t), OutDir: t.TempDir(), Stdout: &buf, Progress: io.Discard, Logf: logf}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	t.Log(out)
	return out
}
