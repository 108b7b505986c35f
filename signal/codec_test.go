package signal

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func TestCodecRoundTrip(t *testing.T) {
	for _, m := range sampleMessages(t) {
		b, err := Encode(m)
		if err != nil {
			t.Fatalf("%v: encode: %v", m.Type, err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("%v: decode %s: %v", m.Type, b, err)
		}
		again, err := Encode(got)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("%v: re-encoding differs:\n%s\n%s (%v)", m.Type, b, again, err)
		}
	}
}

func TestDecodeRefuses(t *testing.T) {
	hello := mustEncode(t, sampleMessages(t)[1])
	relay := mustEncode(t, sampleMessages(t)[3])
	welcome := mustEncode(t, sampleMessages(t)[2])
	summary := mustEncode(t, sampleMessages(t)[12])
	id := testIdentity(t, 1).ID().Hex()
	cases := map[string]struct {
		in   string
		want error
	}{
		"empty":            {``, ErrMalformed},
		"not JSON":         {`hello`, ErrMalformed},
		"array":            {`[1]`, ErrMalformed},
		"no version":       {`{"type":8}`, ErrMalformed},
		"version 2":        {`{"v":2,"type":8,"future":{}}`, ErrVersion},
		"version 0":        {`{"v":0,"type":8}`, ErrVersion},
		"unknown type":     {`{"v":1,"type":99}`, ErrMalformed},
		"type overflow":    {`{"v":1,"type":300}`, ErrMalformed},
		"type string":      {`{"v":1,"type":"ping"}`, ErrMalformed},
		"missing payload":  {`{"v":1,"type":4}`, ErrMalformed},
		"extra payload":    {`{"v":1,"type":8,"bye":{}}`, ErrMalformed},
		"unknown field":    {`{"v":1,"type":8,"x":1}`, ErrMalformed},
		"trailing":         {`{"v":1,"type":8} {}`, ErrMalformed},
		"not UTF-8":        {"{\"v\":1,\"type\":6,\"bye\":{\"reason\":\"\xff\"}}", ErrMalformed},
		"short nonce":      {`{"v":1,"type":1,"challenge":{"nonce":"AAAA"}}`, ErrMalformed},
		"bad base64":       {`{"v":1,"type":1,"challenge":{"nonce":"!!"}}`, ErrMalformed},
		"hello short key":  {strings.Replace(hello, `"public_key":"`, `"public_key":"AA`, 1), ErrMalformed},
		"hello bad id":     {strings.Replace(hello, `"id":"`+id, `"id":"zz`+id[2:], 1), ErrMalformed},
		"hello short id":   {strings.Replace(hello, `"id":"`+id, `"id":"`+id[2:], 1), ErrMalformed},
		"relay no data":    {strings.Replace(relay, `"data":"{\"type\":\"offer\",\"sdp\":\"v=0\"}"`, `"data":""`, 1), ErrMalformed},
		"relay kind":       {strings.Replace(relay, `"kind":1`, `"kind":9`, 1), ErrMalformed},
		"relay no target":  {`{"v":1,"type":4,"relay":{"kind":1,"data":"x"}}`, ErrMalformed},
		"relay huge data":  {`{"v":1,"type":4,"relay":{"to":"` + id + `","kind":1,"data":"` + strings.Repeat("x", MaxRelayData+1) + `"}}`, ErrMalformed},
		"welcome bad task": {strings.Replace(welcome, `"arch":"mlp"`, `"arch":"nope"`, 1), ErrMalformed},
		"welcome NaN-ish":  {strings.Replace(welcome, `"target_accuracy":0.9`, `"target_accuracy":1e999`, 1), ErrMalformed},
		"welcome ICE":      {strings.Replace(welcome, `stun:127`, `http:127`, 1), ErrMalformed},
		"welcome TURN":     {strings.Replace(welcome, `"username":"1:x",`, ``, 1), ErrMalformed},
		"welcome negative": {strings.Replace(welcome, `"bootstrap_ms":30000`, `"bootstrap_ms":-1`, 1), ErrMalformed},
		"error code 0":     {`{"v":1,"type":7,"error":{"code":0}}`, ErrMalformed},
		"summary accuracy": {strings.Replace(summary, `"accuracy":0.875`, `"accuracy":1.5`, 1), ErrMalformed},
		"summary -0.5":     {strings.Replace(summary, `"accuracy":0.875`, `"accuracy":-0.5`, 1), ErrMalformed},
		"summary samples":  {strings.Replace(summary, `"samples":38400`, `"samples":9007199254740993`, 1), ErrMalformed},
		"summary no sig":   {`{"v":1,"type":10,"summary":{"seq":1,"round":0,"accuracy":0,"samples":0,"bytes_out":0}}`, ErrMalformed},
		"bye long":         {`{"v":1,"type":6,"bye":{"reason":"` + strings.Repeat("x", MaxTextLen+1) + `"}}`, ErrMalformed},
		"too large":        {`{"v":1,"type":6,"bye":{"reason":"` + strings.Repeat("x", MaxMessageSize) + `"}}`, ErrTooLarge},
	}
	for name, c := range cases {
		m, err := Decode([]byte(c.in))
		if !errors.Is(err, c.want) || m != nil {
			t.Errorf("%s: got %v (message %v), want %v", name, err, m != nil, c.want)
		}
	}
}

func TestWelcomeContactLimits(t *testing.T) {
	w := *sampleMessages(t)[2].Welcome
	c := testIdentity(t, 9).ID()
	w.Contacts = []ident.Peer{c, c}
	if _, err := Encode(&Message{Type: MsgWelcome, Welcome: &w}); !errors.Is(err, ErrMalformed) {
		t.Errorf("duplicate contacts: %v", err)
	}
	w.Contacts = []ident.Peer{testIdentity(t, 3).ID(), testIdentity(t, 4).ID(), testIdentity(t, 5).ID(), c}
	if _, err := Encode(&Message{Type: MsgWelcome, Welcome: &w}); !errors.Is(err, ErrMalformed) {
		t.Errorf("4 contacts: %v", err)
	}
	w.Contacts = nil
	w.ICEServers = make([]ICEServer, MaxICEServers+1)
	for i := range w.ICEServers {
		w.ICEServers[i] = ICEServer{URLs: []string{"stun:x"}}
	}
	if _, err := Encode(&Message{Type: MsgWelcome, Welcome: &w}); !errors.Is(err, ErrMalformed) {
		t.Errorf("too many ICE servers: %v", err)
	}
}

// A summary's signature covers its task, its peer and every field.
func TestSummarySignature(t *testing.T) {
	_, tid := testSpec(t)
	a, b := testIdentity(t, 1), testIdentity(t, 2)
	s := Summary{Seq: 3, Round: 12, Accuracy: 0.875, Samples: 38_400, BytesOut: 1 << 20}
	SignSummary(a, tid, &s)
	if err := VerifySummary(a.PublicKey(), tid, &s); err != nil {
		t.Fatal(err)
	}
	if err := VerifySummary(b.PublicKey(), tid, &s); !errors.Is(err, ErrBadSignature) {
		t.Errorf("another peer's key: %v", err)
	}
	other := tid
	other[0] ^= 1
	if err := VerifySummary(a.PublicKey(), other, &s); !errors.Is(err, ErrBadSignature) {
		t.Errorf("another task: %v", err)
	}
	for i, change := range []func(*Summary){
		func(s *Summary) { s.Seq++ }, func(s *Summary) { s.Round++ }, func(s *Summary) { s.Accuracy = 0.9 },
		func(s *Summary) { s.Samples++ }, func(s *Summary) { s.BytesOut++ },
	} {
		c := s
		change(&c)
		if err := VerifySummary(a.PublicKey(), tid, &c); !errors.Is(err, ErrBadSignature) {
			t.Errorf("field %d changed: %v", i, err)
		}
	}
	if err := VerifySummary([]byte{1, 2}, tid, &s); !errors.Is(err, ErrBadSignature) {
		t.Errorf("short key: %v", err)
	}
}

func TestEnums(t *testing.T) {
	// Wire values are fixed forever.
	fixed := map[MsgType]uint8{MsgChallenge: 1, MsgHello: 2, MsgWelcome: 3, MsgRelay: 4,
		MsgConnected: 5, MsgBye: 6, MsgError: 7, MsgPing: 8, MsgPong: 9, MsgSummary: 10}
	for m, v := range fixed {
		if uint8(m) != v || !m.Valid() || strings.HasPrefix(m.String(), "MsgType") {
			t.Errorf("%v", m)
		}
	}
	if MsgType(0).Valid() || MsgType(11).Valid() {
		t.Error("unknown types valid")
	}
	if CodeNotAllowed != 10 || CodeTooManyErrors != 18 || CodeProofOfWork != 19 || CodeAdmissionLimited != 20 || len(Codes()) != 20 {
		t.Error("codes renumbered")
	}
	for _, c := range Codes() {
		if !c.Known() || strings.HasPrefix(c.String(), "code-") {
			t.Errorf("code %d unnamed", c)
		}
	}
	if Code(999).String() != "code-999" || RelayKind(7).Valid() || RelayCandidate != 3 {
		t.Error("unknowns")
	}
	r := &Refusal{Code: CodeTaskFull, Text: "x"}
	if !errors.Is(r, ErrRefused) || !errors.Is(r, &Refusal{Code: CodeTaskFull}) || errors.Is(r, &Refusal{Code: CodeBusy}) {
		t.Error("Refusal matching")
	}
}

func mustEncode(t *testing.T, m *Message) string {
	t.Helper()
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
