package nn_test

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
)

// TestMNISTOneEpoch trains the benchmark MLP (784-128-10) for one epoch on
// all of MNIST on one node and requires at least 95% test accuracy. It
// reads the data directory from PEERLEARN_DATA (`make data` fills it):
// unset, the test skips; set but without MNIST, it fails.
func TestMNISTOneEpoch(t *testing.T) {
	dir := os.Getenv("PEERLEARN_DATA")
	if dir == "" {
		t.Skip("PEERLEARN_DATA is not set: run `make data` and set it to the data directory to train on MNIST")
	}
	if runtime.GOOS == "js" {
		t.Skip("an MNIST epoch takes minutes under node; TestNativeMatchesWebAssembly covers wasm numerics")
	}
	train, test, err := data.Load(os.DirFS(dir), "mnist")
	if err != nil {
		t.Fatalf("PEERLEARN_DATA=%s: %v", dir, err)
	}
	a, err := nn.ArchFor("mlp", train.Shape, train.Classes)
	if err != nil {
		t.Fatal(err)
	}
	m, err := nn.NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Init(rand.New(rand.NewPCG(1, 0)), nn.HeNormal, nil); err != nil {
		t.Fatal(err)
	}
	opt, err := nn.NewSGD(0.05, 0.9, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := nn.NewTrainer(m, opt)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	loss, err := tr.TrainEpoch(context.Background(), train.X, train.Y, nn.EpochConfig{Batch: 64, Shuffle: rand.New(rand.NewPCG(2, 0))})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	r, err := tr.Evaluate(test.X, test.Y)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1 epoch (%d samples) in %v (%.0f samples/s), train loss %.4f; test loss %.4f accuracy %.4f",
		train.Len(), elapsed.Round(time.Millisecond), float64(train.Len())/elapsed.Seconds(), loss, r.Loss, r.Accuracy)
	if r.Accuracy < 0.95 {
		t.Fatalf("test accuracy %.4f after one epoch, want >= 0.95", r.Accuracy)
	}
}
