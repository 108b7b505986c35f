package nn_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// The parameter layout of DecHW's CNN: one flat slice, tensors in layer
// order, weights ([outC][inC][kh][kw] or [out][in]) before biases.
func ExampleArch_Layout() {
	a, _ := nn.NewArch("dechw-cnn")
	tensors, _ := a.Layout()
	for _, t := range tensors {
		fmt.Println(t.Name, t.Shape, "at", t.Offset)
	}
	n, _ := a.NumParams()
	fmt.Println(n, "parameters")
	// Output:
	// L0.weight [10 1 5 5] at 0
	// L0.bias [10] at 250
	// L3.weight [20 10 5 5] at 260
	// L3.bias [20] at 5260
	// L7.weight [50 320] at 5280
	// L7.bias [50] at 21280
	// L9.weight [10 50] at 21330
	// L9.bias [10] at 21830
	// 21840 parameters
}

// A browser peer trains between events: the yield function runs between
// batches (in a real GOOS=js build it would block briefly, for example on
// time.After, so the JavaScript event loop can deliver messages).
func ExampleTrainer_SetYield() {
	a, _ := nn.NewArch("fedlay-mlp")
	m, _ := nn.NewModel(a)
	rng := rand.New(rand.NewPCG(1, 2))
	_ = m.Init(rng, nn.HeNormal, nn.Gains(1, 1))
	opt, _ := nn.NewSGD(0.05, 0.9, 0)
	tr, _ := nn.NewTrainer(m, opt)

	x := make([]float32, 100*784)
	y := make([]int32, 100)
	for i := range y {
		y[i] = int32(i % 10)
		x[i*784+i%10] = 1 // a trivially separable toy set
	}
	yields := 0
	tr.SetYield(func() { yields++ })
	_, err := tr.TrainEpoch(context.Background(), x, y, nn.EpochConfig{Batch: 25, Shuffle: rng})
	fmt.Println(err, yields, "yields")
	// Output: <nil> 3 yields
}
