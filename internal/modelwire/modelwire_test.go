package modelwire

import (
	"bytes"
	"errors"
	"testing"

	"github.com/peerlearn/peerlearn/internal/wire"
)

var (
	errVersion   = errors.New("version")
	errType      = errors.New("type")
	errTruncated = errors.New("truncated")
	errTrailing  = errors.New("trailing")
	errOversized = errors.New("oversized")
	errField     = errors.New("field")
)

var testCodec = Codec{
	Version: 7, MaxMessageSize: 200,
	Known: func(t uint8) bool { return t == 1 || t == 2 },
	Errors: Errors{
		Version: errVersion, Type: errType, Truncated: errTruncated,
		Trailing: errTrailing, Oversized: errOversized, Field: errField,
	},
}

func encode(typ uint8, from [32]byte, arch string, n uint32) []byte {
	w := wire.Writer{}
	testCodec.PutOpening(&w, typ, from[:])
	testCodec.PutModel(&w, arch, n)
	return w.B
}

func decode(b []byte) (typ uint8, from [32]byte, arch string, n uint32, err error) {
	r, typ := testCodec.Open(b, from[:])
	arch, n = testCodec.ReadModel(&r)
	return typ, from, arch, n, testCodec.End(&r, len(b))
}

func TestLayoutAndRoundTrip(t *testing.T) {
	from := [32]byte{0: 0xaa, 31: 0xbb}
	b := encode(2, from, "mlp", 0x01020304)
	want := append([]byte{7, 2}, from[:]...)
	want = append(want, 3, 'm', 'l', 'p', 1, 2, 3, 4)
	if !bytes.Equal(b, want) {
		t.Fatalf("encoded % x\nwant    % x", b, want)
	}
	if len(b) != OpeningSize+ModelSize("mlp") {
		t.Fatalf("%d bytes, sizes say %d", len(b), OpeningSize+ModelSize("mlp"))
	}
	typ, gotFrom, arch, n, err := decode(b)
	if err != nil || typ != 2 || gotFrom != from || arch != "mlp" || n != 0x01020304 {
		t.Fatalf("decoded %d %x %q %d %v", typ, gotFrom, arch, n, err)
	}
}

func TestRefusalsInTheProtocolsErrors(t *testing.T) {
	good := encode(1, [32]byte{1}, "ab", 5)
	mut := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	for _, c := range []struct {
		name string
		in   []byte
		want error
	}{
		{"version", mut(func(b []byte) []byte { b[0] = 8; return b }), errVersion},
		{"type", mut(func(b []byte) []byte { b[1] = 3; return b }), errType},
		{"empty arch", mut(func(b []byte) []byte { b[34] = 0; return b }), errField},
		{"long arch", mut(func(b []byte) []byte { b[34] = MaxArchLen + 1; return b }), errOversized},
		{"trailing", append(mut(func(b []byte) []byte { return b }), 0), errTrailing},
		{"oversized", make([]byte, 201), errOversized},
		{"empty", nil, errTruncated},
		{"short", good[:len(good)-1], errTruncated},
	} {
		if _, _, _, _, err := decode(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	for _, c := range []struct {
		arch string
		n    uint32
		want error
	}{
		{"", 1, errField}, {string(make([]byte, MaxArchLen+1)), 1, errOversized}, {string(make([]byte, MaxArchLen)), 1, nil},
		{"a", 0, errField}, {"a", MaxParams + 1, errOversized}, {"a", MaxParams, nil},
	} {
		if err := testCodec.CheckModel(c.arch, c.n); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("CheckModel(%q, %d) = %v, want %v", c.arch, c.n, err, c.want)
		}
	}
	if testCodec.CheckType(2) != nil || !errors.Is(testCodec.CheckType(0), errType) {
		t.Error("CheckType")
	}
}
