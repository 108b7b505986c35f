package export

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// field is one protobuf field: a bytes field's contents or a varint.
type field struct {
	b []byte
	v uint64
}

// msgFields parses one protobuf message into its fields by number.
func msgFields(t *testing.T, b []byte) map[protowire.Number][]field {
	t.Helper()
	out := map[protowire.Number][]field{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		var f field
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			t.Fatalf("field %d: wire type %d, the encoder writes only varints and bytes", num, typ)
		}
		if n < 0 {
			t.Fatalf("field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		out[num] = append(out[num], f)
	}
	return out
}

func str(fs []field) string {
	if len(fs) != 1 {
		return fmt.Sprintf("<%d values>", len(fs))
	}
	return string(fs[0].b)
}

// dims reads a ValueInfoProto's tensor shape, "N" for a symbolic dimension.
func dims(t *testing.T, vi []byte) (string, []string) {
	f := msgFields(t, vi)
	tt := msgFields(t, msgFields(t, f[valueInfoType][0].b)[typeTensorType][0].b)
	if tt[tensorElemType][0].v != dataFloat {
		t.Errorf("elem type %d", tt[tensorElemType][0].v)
	}
	var ds []string
	for _, d := range msgFields(t, tt[tensorTypeShape][0].b)[shapeDim] {
		df := msgFields(t, d.b)
		if p, ok := df[dimParam]; ok {
			ds = append(ds, str(p))
		} else {
			ds = append(ds, fmt.Sprint(df[dimValue][0].v))
		}
	}
	return str(f[valueInfoName]), ds
}

func TestONNXStructure(t *testing.T) {
	for _, c := range []struct {
		arch  string
		ops   string
		input []string
	}{
		{"small-cnn", "Conv Relu MaxPool Conv Relu MaxPool Flatten Gemm", []string{"N", "1", "28", "28"}},
		{"mlp", "Flatten Gemm Relu Gemm", []string{"N", "1", "28", "28"}},
		{"odd", "Conv Tanh MaxPool Flatten Gemm Relu Reshape Conv MaxPool Conv Flatten", []string{"N", "3", "9", "7"}},
		{"pooled", "Conv Relu AveragePool Identity Conv Tanh GlobalAveragePool Flatten Identity Gemm Reshape AveragePool GlobalAveragePool Flatten Gemm", []string{"N", "3", "10", "8"}},
	} {
		var a = oddArch()
		for _, x := range testArchs(t) {
			if x.Name == c.arch {
				a = x
			}
		}
		params := randomParams(t, a, 3)
		b, err := ONNX(a, params)
		if err != nil {
			t.Fatal(err)
		}
		m := msgFields(t, b)
		if m[modelIRVersion][0].v != onnxIRVersion {
			t.Errorf("%s: ir_version %d", c.arch, m[modelIRVersion][0].v)
		}
		op := msgFields(t, m[modelOpsetImport][0].b)
		if str(op[opsetDomain]) != "" || op[opsetVersion][0].v != ONNXOpset {
			t.Errorf("%s: opset %q %d", c.arch, str(op[opsetDomain]), op[opsetVersion][0].v)
		}
		g := msgFields(t, m[modelGraph][0].b)
		var ops []string
		prev := ONNXInput
		for i, nb := range g[graphNode] {
			n := msgFields(t, nb.b)
			ops = append(ops, str(n[nodeOpType]))
			if in := string(n[nodeInput][0].b); in != prev {
				t.Errorf("%s: node %d reads %q, the previous output is %q", c.arch, i, in, prev)
			}
			prev = str(n[nodeOutput])
		}
		if prev != ONNXOutput {
			t.Errorf("%s: the last node writes %q", c.arch, prev)
		}
		if got := strings.Join(ops, " "); got != c.ops {
			t.Errorf("%s: ops %s, want %s", c.arch, got, c.ops)
		}
		name, in := dims(t, g[graphInput][0].b)
		if name != ONNXInput || !slices.Equal(in, c.input) {
			t.Errorf("%s: input %s %v, want %s %v", c.arch, name, in, ONNXInput, c.input)
		}
		name, out := dims(t, g[graphOutput][0].b)
		if name != ONNXOutput || len(out) != 2 || out[0] != "N" {
			t.Errorf("%s: output %s %v", c.arch, name, out)
		}
		// Every parameter is an initializer with its values, in order.
		_, ps, _ := Sequential(a)
		inits := map[string]map[protowire.Number][]field{}
		for _, ib := range g[graphInitializer] {
			f := msgFields(t, ib.b)
			inits[str(f[tensorName])] = f
		}
		for _, p := range ps {
			f, ok := inits[p.Name]
			if !ok {
				t.Fatalf("%s: no initializer %s", c.arch, p.Name)
			}
			var shape []int
			for _, d := range f[tensorDims] {
				shape = append(shape, int(d.v))
			}
			raw := f[tensorRawData][0].b
			if f[tensorDataType][0].v != dataFloat || !slices.Equal(shape, p.Shape) || len(raw) != 4*p.size() {
				t.Fatalf("%s: initializer %s type %d shape %v %d bytes", c.arch, p.Name, f[tensorDataType][0].v, shape, len(raw))
			}
			for i := range p.size() {
				if v := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])); v != params[p.Offset+i] {
					t.Fatalf("%s: %s[%d] = %v, want %v", c.arch, p.Name, i, v, params[p.Offset+i])
				}
			}
		}
	}
}
