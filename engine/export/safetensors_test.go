package export

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/engine/nn"
)

func TestSafetensorsRoundTrip(t *testing.T) {
	for _, a := range testArchs(t) {
		params := randomParams(t, a, 1)
		b, err := Safetensors(a, params)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		n := binary.LittleEndian.Uint64(b)
		if n%8 != 0 {
			t.Errorf("%s: header of %d bytes leaves the tensors unaligned", a.Name, n)
		}
		if got := len(b) - 8 - int(n); got != 4*len(params) {
			t.Errorf("%s: %d data bytes for %d parameters", a.Name, got, len(params))
		}
		f, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		if f.Metadata["format"] != "pt" || f.Metadata[MetaArch] != a.String() {
			t.Errorf("%s: metadata %v", a.Name, f.Metadata)
		}
		var mods []Module
		if err := json.Unmarshal([]byte(f.Metadata[MetaSequential]), &mods); err != nil {
			t.Fatalf("%s: %s: %v", a.Name, MetaSequential, err)
		}
		want, _, _ := Sequential(a)
		if fmt.Sprint(mods) != fmt.Sprint(want) {
			t.Errorf("%s: metadata Sequential %v, want %v", a.Name, mods, want)
		}
		got, err := ReadSafetensors(b, a)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		if !slices.Equal(got, params) {
			t.Fatalf("%s: parameters changed in the round trip", a.Name)
		}
	}
}

// stFile builds a safetensors file from a raw header and data buffer.
func stFile(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(b, header...), data...)
}

// tinyFile is a hand-made valid file for tinyArch: weight [2 2], bias [2],
// module 1 of its Sequential (a Flatten comes first: the input is NCHW).
func tinyFile(weightDType string, order string) []byte {
	data := make([]byte, 0, 24)
	for _, v := range []float32{1, 2, 3, 4, 0.5, -0.5} {
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
	}
	w := `"1.weight":{"dtype":"` + weightDType + `","shape":[2,2],"data_offsets":[0,16]}`
	bias := `"1.bias":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}`
	if order == "bias-first" {
		return stFile("{"+bias+","+w+"}", data)
	}
	return stFile(`{"__metadata__":{"format":"pt"},`+w+","+bias+"}", data)
}

func TestReadSafetensorsByHand(t *testing.T) {
	for _, order := range []string{"weight-first", "bias-first"} {
		got, err := ReadSafetensors(tinyFile("F32", order), tinyArch())
		if err != nil {
			t.Fatalf("%s: %v", order, err)
		}
		if want := []float32{1, 2, 3, 4, 0.5, -0.5}; !slices.Equal(got, want) {
			t.Fatalf("%s: got %v, want %v", order, got, want)
		}
	}
}

func TestReadSafetensorsRefuses(t *testing.T) {
	mlp, _ := nn.NewArch("mlp")
	fedlay, _ := nn.NewArch("fedlay-mlp")
	mlpFile, err := Safetensors(mlp, randomParams(t, mlp, 2))
	if err != nil {
		t.Fatal(err)
	}
	tiny := tinyArch()
	f32 := func(vs ...float32) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		return b
	}
	six := f32(1, 2, 3, 4, 5, 6)
	w := `"1.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}`
	bias := `"1.bias":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}`
	cases := []struct {
		name string
		file []byte
		arch nn.Arch
		want error
		msg  string // a part of the error that names the problem
	}{
		{"another model", mlpFile, fedlay, nn.ErrMismatch, `"1.weight" has shape [128 784], fedlay-mlp wants [78 784]`},
		{"missing tensor", stFile("{"+w+"}", six[:16]), tiny, nn.ErrMismatch, `"1.bias" ([2]) is missing`},
		{"extra tensor", stFile("{"+w+","+bias+`,"2.bias":{"dtype":"F32","shape":[1],"data_offsets":[24,28]}}`, f32(1, 2, 3, 4, 5, 6, 7)), tiny, nn.ErrMismatch, `"2.bias" is not a parameter`},
		{"F16 weight", tinyFile("F16", ""), tiny, ErrFormat, "hold 16 bytes, F16[2 2] needs 8"},
		{"F64 in the right size", stFile(`{"1.weight":{"dtype":"F64","shape":[2,2],"data_offsets":[0,32]},"1.bias":{"dtype":"F32","shape":[2],"data_offsets":[32,40]}}`, make([]byte, 40)), tiny, nn.ErrMismatch, `"1.weight" is F64, want F32`},
		{"transposed shape", stFile(`{"1.weight":{"dtype":"F32","shape":[1,4],"data_offsets":[0,16]},`+bias+"}", six), tiny, nn.ErrMismatch, "shape [1 4]"},
		{"NaN", stFile("{"+w+","+bias+"}", f32(1, 2, float32(math.NaN()), 4, 5, 6)), tiny, nn.ErrNonFinite, `tensor "1.weight" value 2 is NaN`},
		{"infinity", stFile("{"+w+","+bias+"}", f32(1, 2, 3, 4, 5, float32(math.Inf(-1)))), tiny, nn.ErrNonFinite, `tensor "1.bias" value 1 is -Inf`},
		{"empty", nil, tiny, ErrFormat, "shorter than the header length"},
		{"header past the end", binary.LittleEndian.AppendUint64(nil, 1<<40), tiny, ErrFormat, "header of 1099511627776 bytes"},
		{"not an object", stFile(`["1.weight"]`, nil), tiny, ErrFormat, "does not start with '{'"},
		{"invalid UTF-8", stFile("{\"\xff\":1}", nil), tiny, ErrFormat, "not valid UTF-8"},
		{"key twice", stFile("{"+w+","+w+"}", six[:16]), tiny, ErrFormat, `"1.weight" twice`},
		{"metadata twice", stFile(`{"__metadata__":{},"__metadata__":{}}`, nil), tiny, ErrFormat, "twice"},
		{"metadata not strings", stFile(`{"__metadata__":{"epochs":3}}`, nil), tiny, ErrFormat, `__metadata__ "epochs"`},
		{"unknown field", stFile(`{"1.bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"scale":1}}`, six[:8]), tiny, ErrFormat, `unknown field "scale"`},
		{"field missing", stFile(`{"1.bias":{"dtype":"F32","shape":[2]}}`, six[:8]), tiny, ErrFormat, "want dtype, shape and data_offsets"},
		{"null shape", stFile(`{"1.bias":{"dtype":"F32","shape":null,"data_offsets":[0,4]}}`, six[:4]), tiny, ErrFormat, "shape"},
		{"negative dimension", stFile(`{"1.bias":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, six[:8]), tiny, ErrFormat, "shape"},
		{"fractional dimension", stFile(`{"1.bias":{"dtype":"F32","shape":[1.5],"data_offsets":[0,8]}}`, six[:8]), tiny, ErrFormat, "shape"},
		{"huge dimensions", stFile(`{"1.bias":{"dtype":"F32","shape":[1099511627776,1099511627776],"data_offsets":[0,8]}}`, six[:8]), tiny, ErrFormat, "overflows"},
		{"unknown dtype", stFile(`{"1.bias":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}}`, six[:8]), tiny, ErrFormat, `unknown dtype "F33"`},
		{"offsets reversed", stFile(`{"1.bias":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}}`, six[:8]), tiny, ErrFormat, "outside"},
		{"offsets past the end", stFile(`{"1.bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, six[:4]), tiny, ErrFormat, "outside the 4-byte buffer"},
		{"three offsets", stFile(`{"1.bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8,8]}}`, six[:8]), tiny, ErrFormat, "outside"},
		{"gap", stFile(`{"1.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[4,20]},"1.bias":{"dtype":"F32","shape":[1],"data_offsets":[20,24]}}`, six), tiny, ErrFormat, "starts at byte 4"},
		{"overlap", stFile(`{"1.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"1.bias":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}}`, six[:20]), tiny, ErrFormat, "starts at byte 12"},
		{"trailing bytes", stFile("{"+w+","+bias+"}", append(six, 0, 0, 0, 0)), tiny, ErrFormat, "end at byte 24 of a 28-byte buffer"},
		{"data after the header", stFile("{"+w+","+bias+"} {}", six), tiny, ErrFormat, "data after the header"},
		{"unclosed header", stFile("{"+w, six[:16]), tiny, ErrFormat, "header"},
	}
	for _, c := range cases {
		_, err := ReadSafetensors(c.file, c.arch)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %v containing %q", c.name, err, c.want, c.msg)
		}
	}
}

func TestWritersRefuseBadParams(t *testing.T) {
	a := tinyArch()
	for name, enc := range map[string]func(nn.Arch, []float32) ([]byte, error){"safetensors": Safetensors, "onnx": ONNX} {
		if _, err := enc(a, make([]float32, 5)); !errors.Is(err, nn.ErrShape) {
			t.Errorf("%s, 5 of 6 parameters: got %v, want ErrShape", name, err)
		}
		if _, err := enc(a, []float32{0, 0, 0, float32(math.Inf(1)), 0, 0}); !errors.Is(err, nn.ErrNonFinite) {
			t.Errorf("%s, +Inf: got %v, want ErrNonFinite", name, err)
		}
		bad := a
		bad.Layers = nil
		if _, err := enc(bad, nil); !errors.Is(err, nn.ErrArch) {
			t.Errorf("%s, no layers: got %v, want ErrArch", name, err)
		}
	}
}
