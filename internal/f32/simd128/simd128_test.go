package simd128

import (
	"bytes"
	"testing"
)

// The LEB128 encoders against the specification's examples and edges.
func TestLEB128(t *testing.T) {
	for _, tc := range []struct {
		v    uint32
		want []byte
	}{{0, []byte{0}}, {127, []byte{0x7f}}, {128, []byte{0x80, 0x01}}, {624485, []byte{0xe5, 0x8e, 0x26}}} {
		var c code
		if c.uleb(tc.v); !bytes.Equal(c.b, tc.want) {
			t.Errorf("uleb(%d) = %x, want %x", tc.v, c.b, tc.want)
		}
	}
	for _, tc := range []struct {
		v    int32
		want []byte
	}{{0, []byte{0}}, {-1, []byte{0x7f}}, {63, []byte{0x3f}}, {64, []byte{0xc0, 0x00}}, {-64, []byte{0x40}}, {-65, []byte{0xbf, 0x7f}}, {-123456, []byte{0xc0, 0xbb, 0x78}}} {
		var c code
		if c.sleb(tc.v); !bytes.Equal(c.b, tc.want) {
			t.Errorf("sleb(%d) = %x, want %x", tc.v, c.b, tc.want)
		}
	}
}

// TestModuleShape: the header, the sections in order with sizes that add
// up to the module, and the names the loader relies on. (That a host
// validates and runs it is f32's GOOS=js tests' job.)
func TestModuleShape(t *testing.T) {
	m := Module()
	if !bytes.Equal(m[:8], []byte{0, 'a', 's', 'm', 1, 0, 0, 0}) {
		t.Fatalf("header %x", m[:8])
	}
	var ids []byte
	for i := 8; i < len(m); {
		id := m[i]
		i++
		var size, shift uint32
		for {
			b := m[i]
			i++
			size |= uint32(b&0x7f) << shift
			shift += 7
			if b&0x80 == 0 {
				break
			}
		}
		ids = append(ids, id)
		i += int(size)
		if i > len(m) {
			t.Fatalf("section %d runs past the end", id)
		}
	}
	if !bytes.Equal(ids, []byte{1, 2, 3, 7, 10}) {
		t.Errorf("sections %v, want type, import, function, export, code", ids)
	}
	for _, s := range []string{"env", "mem", "gemm", "relu", "relu_grad", "sum", "non_finite", "add_strided", "copy_strided", "sgd"} {
		if !bytes.Contains(m, name(s)) {
			t.Errorf("no %q in the module", s)
		}
	}
	// Browsers compile modules synchronously on the main thread only up
	// to 4 KB.
	if len(m) > 4096 {
		t.Errorf("module is %d bytes, over 4096", len(m))
	}
	if !bytes.Equal(m, Module()) {
		t.Error("Module is not deterministic")
	}
}
