package overlay

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func testID(b byte) ident.Peer { return ident.PeerFromPublicKey([]byte{b}) }

// sampleMessages returns one valid message of every type, every field its
// type carries set.
func sampleMessages() []Message {
	a, b, c, d := testID(1), testID(2), testID(3), testID(4)
	leave := make([]ident.Peer, 2*3)
	leave[0], leave[1], leave[5] = c, d, a // space 1 and half of space 2 empty
	return []Message{
		{Type: MsgJoin, From: a, To: b, Roles: 0b11111},
		{Type: MsgDiscover, From: a, To: b, Origin: c, Space: 4, Hops: 7, Best: 12345},
		{Type: MsgDiscoverReply, From: a, To: b, Space: 1, Roles: ReplyGuess, Peers: []ident.Peer{c, d}},
		{Type: MsgLink, From: a, To: b, Roles: RoleBit(0, Succ) | RoleBit(3, Pred)},
		{Type: MsgHeartbeat, From: a, To: b, Roles: RoleBit(1, Pred), Peers: []ident.Peer{b, c, d}},
		{Type: MsgHeartbeat, From: b, To: a, Roles: RoleBit(1, Succ)},
		{Type: MsgHint, From: a, To: b, Space: 2, Side: Succ, Peers: []ident.Peer{c}},
		{Type: MsgLeave, From: a, To: b, Peers: leave},
		{Type: MsgRepair, From: a, To: b, Origin: c, Space: 15, Side: Pred, Hops: 255, Best: ^uint64(0)},
		{Type: MsgRepairReply, From: a, To: b, Space: 3, Side: Succ},
		{Type: MsgRoute, From: a, To: b, Origin: c, Space: 0, Hops: 1, Best: 9, Target: 1 << 63, TargetID: d, Payload: []byte("offer")},
		{Type: MsgRoute, From: a, To: b, Origin: a, Target: 42},
	}
}

func TestCodecRoundTrip(t *testing.T) {
	seen := map[MsgType]bool{}
	for _, m := range sampleMessages() {
		seen[m.Type] = true
		b, err := Marshal(m)
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		if len(b) != m.EncodedSize() {
			t.Errorf("%v: %d bytes, EncodedSize %d", m, len(b), m.EncodedSize())
		}
		got, err := Unmarshal(b)
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, m)
		}
		// AppendMarshal appends.
		pre := []byte{9, 9}
		b2, err := AppendMarshal(pre, m)
		if err != nil || !bytes.Equal(b2[:2], pre) || !bytes.Equal(b2[2:], b) {
			t.Errorf("AppendMarshal(%v) = %x, %v", m, b2, err)
		}
	}
	for _, ty := range MsgTypes() {
		if !seen[ty] {
			t.Errorf("no sample of %v", ty)
		}
	}
}

// TestWireFormatPinned fixes the bytes of one message: changing the
// format without bumping CodecVersion breaks this test.
func TestWireFormatPinned(t *testing.T) {
	var a, b, c ident.Peer
	a[0], b[0], c[0] = 0xaa, 0xbb, 0xcc
	m := Message{Type: MsgHint, From: a, To: b, Space: 2, Side: Succ, Peers: []ident.Peer{c}}
	got, err := Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	z31 := "00000000000000000000000000000000000000000000000000000000000000"
	want := "0106" + "aa" + z31 + "bb" + z31 + "02" + "01" + "01" + "cc" + z31
	if hex.EncodeToString(got) != want {
		t.Errorf("Hint encodes as\n%x\nwant\n%s", got, want)
	}
}

func TestMarshalRejects(t *testing.T) {
	a, b := testID(1), testID(2)
	tooBig := make([]byte, MaxPayload+1)
	for _, c := range []struct {
		m    Message
		want error
	}{
		{Message{From: a, To: b}, ErrUnknownType},
		{Message{Type: numMsgTypes, From: a, To: b}, ErrUnknownType},
		{Message{Type: MsgLink, To: b}, ErrMalformed},
		{Message{Type: MsgLink, From: a}, ErrMalformed},
		{Message{Type: MsgHeartbeat, From: a, To: b, Origin: a}, ErrMalformed},     // field not carried
		{Message{Type: MsgLink, From: a, To: b, Space: 1}, ErrMalformed},           // field not carried
		{Message{Type: MsgJoin, From: a, To: b, Payload: []byte{1}}, ErrMalformed}, // field not carried
		{Message{Type: MsgHint, From: a, To: b, Space: MaxSpaces, Peers: []ident.Peer{a}}, ErrMalformed},
		{Message{Type: MsgHint, From: a, To: b, Side: 2, Peers: []ident.Peer{a}}, ErrMalformed},
		{Message{Type: MsgHint, From: a, To: b}, ErrMalformed},                                  // no peer
		{Message{Type: MsgHint, From: a, To: b, Peers: []ident.Peer{{}}}, ErrMalformed},         // zero peer
		{Message{Type: MsgDiscoverReply, From: a, To: b, Peers: []ident.Peer{a}}, ErrMalformed}, // one of two
		{Message{Type: MsgLeave, From: a, To: b, Peers: []ident.Peer{a, b, a}}, ErrMalformed},   // odd
		{Message{Type: MsgLeave, From: a, To: b, Peers: make([]ident.Peer, 2*MaxSpaces+2)}, ErrMalformed},
		{Message{Type: MsgDiscover, From: a, To: b}, ErrMalformed}, // zero Origin
		{Message{Type: MsgRoute, From: a, To: b, Origin: a, Payload: tooBig}, ErrTooLarge},
	} {
		if _, err := Marshal(c.m); !errors.Is(err, c.want) {
			t.Errorf("Marshal(%+v) error %v, want %v", c.m.Type, err, c.want)
		}
	}
}

func TestUnmarshalRejects(t *testing.T) {
	for _, m := range sampleMessages() {
		b, _ := Marshal(m)
		for k := range len(b) { // every truncation
			if _, err := Unmarshal(b[:k]); !errors.Is(err, ErrMalformed) {
				t.Fatalf("%v cut to %d of %d bytes: error %v, want ErrMalformed", m, k, len(b), err)
			}
		}
		if _, err := Unmarshal(append(b, 0)); !errors.Is(err, ErrTrailingData) {
			t.Errorf("%v with a trailing byte: %v", m, err)
		}
		bad := bytes.Clone(b)
		bad[0] = CodecVersion + 1
		if _, err := Unmarshal(bad); !errors.Is(err, ErrVersion) {
			t.Errorf("%v version %d: %v", m, bad[0], err)
		}
	}
	good, _ := Marshal(sampleMessages()[6]) // Hint: space, side, peers
	set := func(off int, v byte) []byte { b := bytes.Clone(good); b[off] = v; return b }
	for name, c := range map[string]struct {
		b    []byte
		want error
	}{
		"type 0":        {set(1, 0), ErrUnknownType},
		"type unknown":  {set(1, numMsgTypes), ErrUnknownType},
		"space":         {set(headerSize, MaxSpaces), ErrMalformed},
		"side":          {set(headerSize+1, 2), ErrMalformed},
		"peer count 2":  {set(headerSize+2, 2), ErrMalformed},
		"peer count 0":  {set(headerSize+2, 0), ErrTrailingData},
		"peer count 99": {set(headerSize+2, 99), ErrMalformed},
		"zero from":     {append(append([]byte{1, byte(MsgLink)}, make([]byte, 32)...), append(good[34:66:66], 0, 0, 0, 1)...), ErrMalformed},
		"oversized":     {make([]byte, MaxMessageSize+1), ErrTooLarge},
	} {
		if _, err := Unmarshal(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", name, err, c.want)
		}
	}
	// A payload length beyond the limit is refused before reading it.
	route, _ := Marshal(Message{Type: MsgRoute, From: testID(1), To: testID(2), Origin: testID(1)})
	route[len(route)-4] = 0xff
	if _, err := Unmarshal(route); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge payload length: %v", err)
	}
}
