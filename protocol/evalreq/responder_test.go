package evalreq

import (
	"errors"
	"math"
	"testing"
)

func responder(t *testing.T, mod func(*ResponderConfig)) *Responder {
	t.Helper()
	cfg := DefaultResponderConfig()
	cfg.ID, cfg.Arch, cfg.NumParams = id(9), "m", 3
	if mod != nil {
		mod(&cfg)
	}
	r, err := NewResponder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func request(from byte, reqID uint64) Message {
	return Message{Type: MsgEvalRequest, From: id(from), To: id(9), ReqID: reqID, Round: 4,
		Model: ModelHeader{Arch: "m", NumParams: 3}, Params: []float32{1, 2, 3}}
}

func TestResponderTokenBucket(t *testing.T) {
	r := responder(t, func(c *ResponderConfig) { c.Burst, c.RefillTicks = 2, 3 })
	admit := func() (Message, bool) {
		t.Helper()
		reply, ok, err := r.Admit(request(1, 5))
		if err != nil {
			t.Fatal(err)
		}
		return reply, ok
	}
	// A full bucket of 2, then refusals until 3 ticks have passed.
	for i := range 2 {
		if _, ok := admit(); !ok {
			t.Fatalf("request %d refused with a full bucket", i)
		}
	}
	reply, ok := admit()
	if ok || reply.Type != MsgEvalRefused || reply.Reason != ReasonRateLimited || reply.To != id(1) || reply.ReqID != 5 {
		t.Fatalf("third request: ok=%v reply %+v, want rate-limited refusal", ok, reply)
	}
	r.Tick()
	r.Tick()
	if _, ok := admit(); ok {
		t.Fatal("admitted after 2 of 3 refill ticks")
	}
	r.Tick()
	if _, ok := admit(); !ok {
		t.Fatal("refused after a refill")
	}
	// Refill stops at the capacity: 100 idle ticks give 2 tokens, not 33.
	for range 100 {
		r.Tick()
	}
	n := 0
	for {
		if _, ok := admit(); !ok {
			break
		}
		n++
	}
	if n != 2 {
		t.Fatalf("%d admitted after a long idle, want the burst of 2", n)
	}
	s := r.Stats()
	if s.Admitted != 5 || s.RateLimited != 3 || s.Requests != 8 {
		t.Fatalf("stats %+v", s)
	}
}

func TestResponderPolicyAndModel(t *testing.T) {
	r := responder(t, func(c *ResponderConfig) { c.Refuse = true })
	reply, ok, err := r.Admit(request(1, 1))
	if err != nil || ok || reply.Reason != ReasonPolicy {
		t.Fatalf("refusing peer: %+v %v %v", reply, ok, err)
	}

	r = responder(t, func(c *ResponderConfig) { c.Burst = 1 })
	bad := []func(*Message){
		func(m *Message) { m.Model.Arch = "other" },
		func(m *Message) { m.Model.NumParams, m.Params = 2, m.Params[:2] },
		func(m *Message) { m.Params = m.Params[:2] },
		func(m *Message) { m.Params = []float32{1, float32(math.NaN()), 3} },
	}
	for i, f := range bad {
		m := request(1, 1)
		f(&m)
		reply, ok, err := r.Admit(m)
		if err != nil || ok || reply.Reason != ReasonBadModel {
			t.Errorf("bad model %d: %+v %v %v", i, reply, ok, err)
		}
	}
	// Bad models spent no token.
	if _, ok, _ := r.Admit(request(1, 2)); !ok {
		t.Fatal("good request refused after bad ones")
	}

	drops := []Message{
		{Type: MsgEvalResult, From: id(1), To: id(9), ReqID: 1, Loss: 1, Accuracy: 1, Samples: 1},
		func() Message { m := request(1, 1); m.To = id(8); return m }(),
		request(9, 1), // from self
		request(1, 0), // request ID 0
	}
	wants := []error{ErrUnexpected, ErrNotForMe, ErrUnexpected, ErrField}
	for i, m := range drops {
		if _, _, err := r.Admit(m); !errors.Is(err, wants[i]) {
			t.Errorf("drop %d: %v, want %v", i, err, wants[i])
		}
	}
	if s := r.Stats(); s.Dropped != 4 || s.BadModel != 4 {
		t.Fatalf("stats %+v", s)
	}
}

func TestResponderAnswer(t *testing.T) {
	r := responder(t, nil)
	req := request(1, 11)
	m, err := r.Answer(req, 0.5, 0.75, 125)
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != MsgEvalResult || m.To != id(1) || m.From != id(9) || m.ReqID != 11 || m.Round != 4 ||
		m.Loss != 0.5 || m.Accuracy != 0.75 || m.Samples != 125 {
		t.Fatalf("answer %+v", m)
	}
	for _, c := range []struct {
		loss, acc float64
		n         int
	}{{-1, 0.5, 1}, {math.NaN(), 0.5, 1}, {1, 1.01, 1}, {1, 0.5, 0}} {
		if _, err := r.Answer(req, c.loss, c.acc, c.n); !errors.Is(err, ErrBadResult) {
			t.Errorf("answer %+v: %v, want ErrBadResult", c, err)
		}
	}
}

func TestResponderConfigValidate(t *testing.T) {
	good := DefaultResponderConfig()
	good.ID, good.Arch, good.NumParams = id(1), "m", 1
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for i, f := range []func(*ResponderConfig){
		func(c *ResponderConfig) { c.ID = [32]byte{} },
		func(c *ResponderConfig) { c.Arch = "" },
		func(c *ResponderConfig) { c.NumParams = 0 },
		func(c *ResponderConfig) { c.Burst = 0 },
		func(c *ResponderConfig) { c.RefillTicks = 0 },
	} {
		c := good
		f(&c)
		if _, err := NewResponder(c); !errors.Is(err, ErrConfig) {
			t.Errorf("case %d: %v, want ErrConfig", i, err)
		}
	}
}
