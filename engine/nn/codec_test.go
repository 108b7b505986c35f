package nn

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"testing"
)

func tinyArch() Arch {
	return Arch{Name: "tiny", Input: [3]int{1, 3, 1}, Classes: 2, Layers: []LayerSpec{Dense(2)}}
}

func TestEncodingRoundTrip(t *testing.T) {
	for _, name := range []string{"mlp", "dechw-cnn"} {
		a, err := NewArch(name)
		if err != nil {
			t.Fatal(err)
		}
		m := initModel(t, a, 3)
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != EncodedLen(name, m.NumParams()) {
			t.Fatalf("%s: %d bytes, EncodedLen says %d", name, len(b), EncodedLen(name, m.NumParams()))
		}
		var w bytes.Buffer
		if _, err := m.WriteTo(&w); err != nil || !bytes.Equal(w.Bytes(), b) {
			t.Fatalf("%s: WriteTo differs from MarshalBinary (err %v)", name, err)
		}
		h, params, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if h.Arch != name || h.Version != 1 || h.Count != m.NumParams() || h.ShapeChecksum != m.ShapeChecksum() {
			t.Fatalf("%s: header %+v", name, h)
		}
		if Fingerprint(params) != Fingerprint(m.Params()) {
			t.Fatalf("%s: decoded parameters differ", name)
		}
		m2, _ := NewModel(a)
		if err := m2.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if Fingerprint(m2.Params()) != Fingerprint(m.Params()) {
			t.Fatalf("%s: loaded parameters differ", name)
		}
	}
}

func TestEncodingLayoutIsDocumented(t *testing.T) {
	b, err := AppendEncoded(nil, "ab", 0x0102030405060708, []float32{1.5, -2})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{'P', 'L', 'N', 'N', 1, 0, 2, 0, 'a', 'b',
		8, 7, 6, 5, 4, 3, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0}
	want = binary.LittleEndian.AppendUint32(want, crc32.Checksum(want, crc32.MakeTable(crc32.Castagnoli)))
	if !bytes.Equal(b, want) {
		t.Fatalf("encoding\n%x\nwant\n%x", b, want)
	}
}

func TestDecodeRejectsDamage(t *testing.T) {
	m := initModel(t, tinyArch(), 1)
	good, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// Every truncation fails.
	for n := range len(good) {
		if _, _, err := Decode(good[:n]); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(good))
		}
	}
	// Every single-byte change fails (CRC-32C catches all of them).
	for i := range good {
		bad := bytes.Clone(good)
		bad[i] ^= 0x5a
		if _, _, err := Decode(bad); err == nil {
			t.Fatalf("byte %d changed: no error", i)
		}
	}
	if _, _, err := Decode(append(bytes.Clone(good), 0)); !errors.Is(err, ErrFormat) {
		t.Errorf("trailing byte: %v", err)
	}
	bad := bytes.Clone(good)
	bad[len(bad)-1] ^= 1
	if _, _, err := Decode(bad); !errors.Is(err, ErrChecksum) {
		t.Errorf("checksum flipped: %v", err)
	}
	// A version 2 file is refused as such, not as damage.
	v2 := bytes.Clone(good)
	v2[4] = 2
	if _, _, err := Decode(fixCRC(v2)); !errors.Is(err, ErrVersion) {
		t.Errorf("version 2: %v", err)
	}
	// NaN and Inf with a valid checksum.
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(-1))} {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint32(b[len(b)-8:], math.Float32bits(v))
		if _, _, err := Decode(fixCRC(b)); !errors.Is(err, ErrNonFinite) {
			t.Errorf("%v parameter: %v", v, err)
		}
	}
	if _, err := AppendEncoded(nil, "x", 0, []float32{float32(math.NaN())}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("encoding NaN: %v", err)
	}
}

// fixCRC recomputes the trailing checksum after a deliberate edit.
func fixCRC(b []byte) []byte {
	n := len(b) - 4
	binary.LittleEndian.PutUint32(b[n:], crc32.Checksum(b[:n], castagnoli))
	return b
}

func TestUnmarshalRejectsOtherArchitectures(t *testing.T) {
	mlp, _ := NewArch("mlp")
	m := initModel(t, mlp, 1)
	before := Fingerprint(m.Params())
	// Same name and count, different layout (a relabelled fedlay-mlp would
	// differ in count; here only the checksum differs).
	for _, c := range []struct {
		name string
		sum  uint64
		n    int
	}{
		{"fedlay-mlp", m.ShapeChecksum(), m.NumParams()},
		{"mlp", m.ShapeChecksum() ^ 1, m.NumParams()},
		{"mlp", m.ShapeChecksum(), m.NumParams() - 1},
	} {
		b, err := AppendEncoded(nil, c.name, c.sum, make([]float32, c.n))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.UnmarshalBinary(b); !errors.Is(err, ErrMismatch) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if Fingerprint(m.Params()) != before {
		t.Fatal("a failed load changed the model")
	}
}

func TestShapeChecksumsDiffer(t *testing.T) {
	seen := map[uint64]string{}
	for _, name := range ArchNames() {
		a, _ := NewArch(name)
		s, err := a.ShapeChecksum()
		if err != nil {
			t.Fatal(err)
		}
		if other, dup := seen[s]; dup {
			t.Fatalf("%s and %s share checksum %016x", name, other, s)
		}
		seen[s] = name
	}
	// The checksum depends on the input shape too.
	a, _ := ArchFor("mlp", [3]int{28, 28, 1}, 10)
	b, _ := ArchFor("mlp", [3]int{14, 56, 1}, 10)
	sa, _ := a.ShapeChecksum()
	sb, _ := b.ShapeChecksum()
	if sa == sb {
		t.Fatal("28x28 and 14x56 inputs share a checksum")
	}
}

func TestFingerprint(t *testing.T) {
	p := []float32{1, 2, 3}
	// Defined as SHA-256 of the little-endian bytes, i.e. of the encoding's payload.
	b, _ := AppendEncoded(nil, "x", 0, p)
	payload := b[headerFixed+1 : len(b)-trailerLen]
	if Fingerprint(p) != Digest(sha256.Sum256(payload)) {
		t.Fatal("Fingerprint is not SHA-256 of the encoded payload")
	}
	if Fingerprint(p) == Fingerprint([]float32{1, 2, 3.0000002}) {
		t.Fatal("one-ulp change, same digest")
	}
	// Longer than the internal 4 KiB buffer.
	big := make([]float32, 5000)
	big[4999] = 1
	if Fingerprint(big) == Fingerprint(make([]float32, 5000)) {
		t.Fatal("change past the first buffer ignored")
	}
	if got := Fingerprint(p).String(); len(got) != 16 {
		t.Fatalf("String() = %q, want 16 hex digits", got)
	}
}

// FuzzUnmarshal feeds arbitrary bytes to Decode: it must never panic,
// and whatever it accepts must re-encode to the same bytes.
func FuzzUnmarshal(f *testing.F) {
	m := initModel(f, tinyArch(), 1)
	good, _ := m.MarshalBinary()
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add([]byte("PLNN"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, params, err := Decode(data)
		if err != nil {
			return
		}
		again, err := AppendEncoded(nil, h.Arch, h.ShapeChecksum, params)
		if err != nil {
			t.Fatalf("decoded %+v but cannot re-encode: %v", h, err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("re-encoding differs:\n%x\n%x", again, data)
		}
	})
}
