//go:build js && wasm

package f32

import (
	"errors"
	"fmt"
	"syscall/js"

	"github.com/peerlearn/peerlearn/internal/f32/simd128"
)

// The module's exports, callable from Go.
var simdGemm, simdRelu, simdReluGrad, simdSum, simdNonFinite, simdAddStrided, simdCopyStrided, simdSGD js.Value

// simdErr says why the SIMD kernels are not running (nil when they are).
var simdErr error

// setupSIMD builds the SIMD module, checks that this host validates it
// (hosts without SIMD128 reject it), instantiates it over the Go
// instance's memory and keeps its gemm export. Any failure leaves the
// pure-Go kernels in place and is reported by AccelError.
func setupSIMD() (ok bool) {
	defer func() {
		if r := recover(); r != nil { // a host missing what we call
			simdErr = fmt.Errorf("f32: simd128 set-up failed: %v", r)
			ok = false
		}
	}()
	simdErr = instantiateSIMD()
	return simdErr == nil
}

func instantiateSIMD() error {
	wa := js.Global().Get("WebAssembly")
	if wa.Type() != js.TypeObject {
		return errors.New("f32: no WebAssembly object")
	}
	mod := simd128.Module()
	bytes := js.Global().Get("Uint8Array").New(len(mod))
	js.CopyBytesToJS(bytes, mod)
	if !wa.Call("validate", bytes).Bool() {
		return errors.New("f32: this WebAssembly host does not support SIMD128")
	}
	mem, err := goMemory()
	if err != nil {
		return err
	}
	env := js.Global().Get("Object").New()
	env.Set("mem", mem)
	imports := js.Global().Get("Object").New()
	imports.Set("env", env)
	// Synchronous compilation: the module is under the 4 KB that
	// browsers allow on the main thread.
	inst := wa.Get("Instance").New(wa.Get("Module").New(bytes), imports)
	for _, e := range []struct {
		name string
		fn   *js.Value
	}{{"gemm", &simdGemm}, {"relu", &simdRelu}, {"relu_grad", &simdReluGrad}, {"sum", &simdSum}, {"non_finite", &simdNonFinite},
		{"add_strided", &simdAddStrided}, {"copy_strided", &simdCopyStrided}, {"sgd", &simdSGD}} {
		*e.fn = inst.Get("exports").Get(e.name)
		if e.fn.Type() != js.TypeFunction {
			return fmt.Errorf("f32: simd128 module has no %s export", e.name)
		}
	}
	return nil
}

// goMemory returns the WebAssembly.Memory of the running Go instance.
// syscall/js does not expose it, but wasm_exec.js's Go class holds its
// instance (_inst) and syscall/js.FuncOf calls the instance's
// _makeFuncWrapper method: for one FuncOf, a Go function stands in for
// that method, sees the instance as its `this`, and hands on to the
// original. Hosts whose loader differs get the pure-Go kernels.
func goMemory() (js.Value, error) {
	goClass := js.Global().Get("Go")
	if goClass.Type() != js.TypeFunction {
		return js.Value{}, errors.New("f32: no Go class (wasm_exec.js) in this host")
	}
	proto := goClass.Get("prototype")
	orig := proto.Get("_makeFuncWrapper")
	if orig.Type() != js.TypeFunction {
		return js.Value{}, errors.New("f32: wasm_exec.js has no _makeFuncWrapper")
	}
	var self js.Value
	spy := js.FuncOf(func(this js.Value, args []js.Value) any {
		self = this
		return orig.Call("call", this, args[0])
	})
	defer spy.Release()
	func() {
		proto.Set("_makeFuncWrapper", spy)
		defer proto.Set("_makeFuncWrapper", orig) // even if FuncOf panics
		js.FuncOf(func(js.Value, []js.Value) any { return nil }).Release()
	}()
	if self.Type() != js.TypeObject {
		return js.Value{}, errors.New("f32: could not find the Go instance")
	}
	mem := self.Get("_inst").Get("exports").Get("mem")
	if !mem.InstanceOf(js.Global().Get("WebAssembly").Get("Memory")) {
		return js.Value{}, errors.New("f32: the Go instance exports no memory")
	}
	return mem, nil
}

// AccelError says why the accelerated kernels are not available in this
// build or host (nil when they are).
func AccelError() error { return simdErr }
