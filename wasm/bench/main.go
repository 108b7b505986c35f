//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"syscall/js"
	"time"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("train", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 5 {
			return reject("train(arch, images, labels, batch, ms[, accel])")
		}
		arch, batch, ms := args[0].String(), args[3].Int(), args[4].Int()
		// An optional sixth argument false trains with the pure-Go
		// kernels instead of the SIMD128 module (bench-browser measures
		// both); the result's "kernels" says which ran.
		accel := len(args) < 6 || args[5].Truthy()
		x := floats(args[1])
		y := ints(args[2])
		return promise(func() (map[string]any, error) {
			defer f32.SetAccelerated(f32.SetAccelerated(accel))
			return train(arch, x, y, batch, time.Duration(ms)*time.Millisecond)
		})
	}))
	api.Set("keygen", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 2 {
			return reject("keygen(spaces, ms)")
		}
		spaces, ms := args[0].Int(), args[1].Int()
		return promise(func() (map[string]any, error) {
			return keygen(spaces, time.Duration(ms)*time.Millisecond)
		})
	}))
	js.Global().Set("PeerLearnBench", api)
	select {}
}

// reject returns a rejected Promise (bad arguments).
func reject(msg string) js.Value {
	return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New(msg))
}

// promise runs fn on a goroutine (a blocking call on the event loop's
// goroutine would deadlock wasm_exec) and settles a Promise with its
// result; a panic rejects it.
func promise(fn func() (map[string]any, error)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, pa []js.Value) any {
		resolve, reject := pa[0], pa[1]
		go func() {
			defer func() {
				if r := recover(); r != nil {
					reject.Invoke(js.Global().Get("Error").New(fmt.Sprint("panic: ", r)))
				}
			}()
			res, err := fn()
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(err.Error()))
				return
			}
			resolve.Invoke(js.ValueOf(res))
		}()
		return nil
	})
	defer executor.Release()
	return js.Global().Get("Promise").New(executor)
}

func floats(v js.Value) []float32 {
	n := v.Get("length").Int()
	b := js.Global().Get("Uint8Array").New(v.Get("buffer"), v.Get("byteOffset"), 4*n)
	raw := make([]byte, 4*n)
	js.CopyBytesToGo(raw, b)
	out := make([]float32, n)
	for i := range out {
		u := uint32(raw[4*i]) | uint32(raw[4*i+1])<<8 | uint32(raw[4*i+2])<<16 | uint32(raw[4*i+3])<<24
		out[i] = math.Float32frombits(u)
	}
	return out
}

func ints(v js.Value) []int32 {
	n := v.Get("length").Int()
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(v.Index(i).Int())
	}
	return out
}

// train runs SGD (lr 0.05, momentum 0.9) on consecutive batches of (x, y),
// cycling, after 5 warm-up steps.
func train(arch string, x []float32, y []int32, batch int, d time.Duration) (map[string]any, error) {
	a, err := nn.NewArch(arch)
	if err != nil {
		return nil, err
	}
	m, err := nn.NewModel(a)
	if err != nil {
		return nil, err
	}
	if err := m.Init(rand.New(rand.NewPCG(1, 2)), nn.HeNormal, nil); err != nil {
		return nil, err
	}
	opt, err := nn.NewSGD(0.05, 0.9, 0)
	if err != nil {
		return nil, err
	}
	tr, err := nn.NewTrainer(m, opt)
	if err != nil {
		return nil, err
	}
	f := 784
	n := len(y) / batch
	if n == 0 || len(x) != len(y)*f {
		return nil, fmt.Errorf("%d labels, %d values: want at least a batch of %d samples of %d", len(y), len(x), batch, f)
	}
	step := func(i int) (float32, error) {
		j := i % n
		return tr.TrainBatch(x[j*batch*f:(j+1)*batch*f], y[j*batch:(j+1)*batch])
	}
	for i := range 5 {
		if _, err := step(i); err != nil {
			return nil, err
		}
	}
	var loss float32
	steps := 0
	t0 := time.Now()
	for time.Since(t0) < d {
		if loss, err = step(steps); err != nil {
			return nil, err
		}
		steps++
	}
	el := time.Since(t0)
	return map[string]any{
		"sps": float64(steps*batch) / el.Seconds(), "steps": steps, "samples": steps * batch,
		"loss": float64(loss), "ms": float64(el.Microseconds()) / 1000, "params": m.NumParams(),
		"kernels": f32.Kernels(),
	}, nil
}
