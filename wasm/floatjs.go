//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"
	"unsafe"
)

// Typed arrays between Go and JavaScript, for the trainer worker's
// messages. Go and WebAssembly are little-endian alike, so a []float32
// is copied as its bytes (one memmove each way) into a fresh ArrayBuffer,
// which postMessage then transfers rather than clones.

// float32sToJS returns a new Float32Array holding v.
func float32sToJS(v []float32) js.Value {
	u := js.Global().Get("Uint8Array").New(4 * len(v))
	if len(v) > 0 {
		js.CopyBytesToJS(u, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)))
	}
	return js.Global().Get("Float32Array").New(u.Get("buffer"))
}

// int32sToJS returns a new Int32Array holding v.
func int32sToJS(v []int32) js.Value {
	u := js.Global().Get("Uint8Array").New(4 * len(v))
	if len(v) > 0 {
		js.CopyBytesToJS(u, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)))
	}
	return js.Global().Get("Int32Array").New(u.Get("buffer"))
}

// typedBytes checks that a is a typed array of kind (Float32Array,
// Int32Array) and returns a Uint8Array over its bytes and its length.
func typedBytes(a js.Value, kind string) (js.Value, int, error) {
	if a.Type() != js.TypeObject || !a.InstanceOf(js.Global().Get(kind)) {
		return js.Value{}, 0, fmt.Errorf("want a %s", kind)
	}
	n := a.Get("length").Int()
	return js.Global().Get("Uint8Array").New(a.Get("buffer"), a.Get("byteOffset"), 4*n), n, nil
}

// float32sFromJS copies a Float32Array into a new slice.
func float32sFromJS(a js.Value) ([]float32, error) {
	u, n, err := typedBytes(a, "Float32Array")
	if err != nil {
		return nil, err
	}
	v := make([]float32, n)
	if n > 0 {
		js.CopyBytesToGo(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*n), u)
	}
	return v, nil
}

// float32sIntoGo copies a Float32Array of exactly len(dst) values into dst.
func float32sIntoGo(dst []float32, a js.Value) error {
	u, n, err := typedBytes(a, "Float32Array")
	if err != nil {
		return err
	}
	if n != len(dst) {
		return fmt.Errorf("%d values, want %d", n, len(dst))
	}
	if n > 0 {
		js.CopyBytesToGo(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*n), u)
	}
	return nil
}

// int32sFromJS copies an Int32Array into a new slice.
func int32sFromJS(a js.Value) ([]int32, error) {
	u, n, err := typedBytes(a, "Int32Array")
	if err != nil {
		return nil, err
	}
	v := make([]int32, n)
	if n > 0 {
		js.CopyBytesToGo(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*n), u)
	}
	return v, nil
}
