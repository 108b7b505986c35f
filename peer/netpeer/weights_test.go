package netpeer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/export"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/protocol/task/taskarch"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A task's declared initial weights are every peer's start: the real
// peer's recipe (LearnerConfig, then LoadWeights) fetches the file once,
// checks its SHA-256 and tensors, and the learning peer's model is the
// file's parameters exactly. A wrong hash, a file too big for the model,
// a missing file, or a caller that skips LoadWeights is refused.
func TestDeclaredWeightsAreTheStart(t *testing.T) {
	layers := []task.Layer{{Type: "flatten"}, {Type: "dense", Units: 16}, {Type: "relu"}, {Type: "dense", Units: 10}}
	declare := func(s *task.Spec) {
		s.Arch = ""
		s.Model = &task.Model{Input: []int{28, 28, 1}, Classes: strings.Split("0123456789", ""), Layers: layers}
	}
	plain, _ := servertest.Task(t, "weights", declare)
	arch, err := taskarch.Arch(plain)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := arch.NumParams()
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(i%101)/200 - 0.25
	}
	file, err := export.Safetensors(arch, want)
	if err != nil {
		t.Fatal(err)
	}
	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets.Add(1)
		switch r.URL.Path {
		case "/w.safetensors":
			w.Write(file)
		case "/big.safetensors":
			w.Write(make([]byte, 4*n+weightsHeader+1))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	sum := sha256.Sum256(file)
	withWeights := func(path, sha string) task.Spec {
		s, _ := servertest.Task(t, "weights", declare, func(s *task.Spec) {
			s.Model.Weights = &task.Weights{URL: srv.URL + path, SHA256: sha}
		})
		return s
	}
	train := synthetic(64, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 3)
	build := func(spec task.Spec, seed byte) (*learn.Peer, error) {
		cfg, err := node.LearnerConfig(spec, ident.Peer{seed}, train, 100*time.Millisecond)
		if err != nil {
			return nil, err
		}
		if err := LoadWeights(context.Background(), spec, &cfg); err != nil {
			return nil, err
		}
		return learn.NewPeer(cfg, train)
	}

	good := withWeights("/w.safetensors", hex.EncodeToString(sum[:]))
	for seed := range byte(3) {
		lp, err := build(good, seed+1)
		if err != nil {
			t.Fatal(err)
		}
		got, err := lp.Params()
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("peer %d parameter %d is %v, the file's %v", seed, i, got[i], want[i])
			}
		}
	}
	if g := gets.Load(); g != 1 {
		t.Errorf("three peers fetched the file %d times, want once (cached by hash)", g)
	}

	cfg, err := node.LearnerConfig(good, ident.Peer{9}, train, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := learn.NewPeer(cfg, train); !errors.Is(err, learn.ErrConfig) {
		t.Errorf("without LoadWeights: %v, want the learner's refusal", err)
	}
	other := sha256.Sum256([]byte("another file"))
	for name, spec := range map[string]task.Spec{
		"wrong hash": withWeights("/w.safetensors", hex.EncodeToString(other[:])),
		"too big":    withWeights("/big.safetensors", hex.EncodeToString(other[:])),
		"missing":    withWeights("/none.safetensors", hex.EncodeToString(other[:])),
	} {
		if _, err := build(spec, 1); !errors.Is(err, taskarch.ErrWeights) {
			t.Errorf("%s: %v, want ErrWeights", name, err)
		}
	}
	gain := good
	gain.Init = task.Init{Mode: "he-gain"}
	if err := gain.ValidateFor(node.TaskEngine{}); !errors.Is(err, taskarch.ErrWeights) {
		t.Errorf("weights with he-gain: %v, want refused", err)
	}
}
