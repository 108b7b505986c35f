package export

import (
	"errors"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// FuzzDecode feeds arbitrary bytes to Decode and ReadSafetensors (as
// tinyArch's parameters): no panic, only the package's errors, and what
// is accepted is consistent (the tensors tile the buffer; parameters read
// survive a write and a read). testdata/fuzz/FuzzDecode holds the seeds.
func FuzzDecode(f *testing.F) {
	good, err := Safetensors(tinyArch(), []float32{1, 2, 3, 4, 5, 6})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(tinyFile("F32", "bias-first"))
	f.Add(good[:len(good)-1])
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("Decode error %v does not wrap ErrFormat", err)
			}
			return
		}
		covered := 0
		for _, e := range file.Tensors {
			size := dtypeSize[e.DType]
			for _, d := range e.Shape {
				size *= d
			}
			if len(file.Data(e)) != size {
				t.Fatalf("tensor %q: %d bytes for %s%v", e.Name, len(file.Data(e)), e.DType, e.Shape)
			}
			covered += size
		}
		if covered != len(file.data) {
			t.Fatalf("tensors cover %d of %d bytes", covered, len(file.data))
		}
		params, err := ReadSafetensors(data, tinyArch())
		if err != nil {
			if !errors.Is(err, nn.ErrMismatch) && !errors.Is(err, nn.ErrNonFinite) {
				t.Fatalf("ReadSafetensors error %v after a clean Decode", err)
			}
			return
		}
		again, err := Safetensors(tinyArch(), params)
		if err != nil {
			t.Fatalf("read %v but cannot write it: %v", params, err)
		}
		back, err := ReadSafetensors(again, tinyArch())
		if err != nil || !slices.Equal(back, params) {
			t.Fatalf("rewritten file reads %v, %v; want %v", back, err, params)
		}
	})
}
