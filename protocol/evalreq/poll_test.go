package evalreq

import (
	"errors"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func TestPoll(t *testing.T) {
	cfg := PollConfig{ID: id(9), Round: 2, FirstReqID: 100, Timeout: 5, Model: ModelHeader{Arch: "m", NumParams: 2}}
	params := []float32{1, 2}
	p, reqs, err := NewPoll(cfg, []ident.Peer{id(1), id(2), id(3)}, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 3 || reqs[1].To != id(2) || reqs[1].ReqID != 101 || reqs[1].Round != 2 || reqs[2].From != id(9) || &reqs[0].Params[0] != &params[0] {
		t.Fatalf("requests %+v", reqs)
	}
	// A responder's answer goes through.
	r := responder(t, func(c *ResponderConfig) { c.ID, c.NumParams = id(2), 2 })
	if _, ok, err := r.Admit(reqs[1]); !ok || err != nil {
		t.Fatalf("admit: %v %v", ok, err)
	}
	ans, _ := r.Answer(reqs[1], 0.25, 0.5, 10)
	if err := p.Step(ans); err != nil {
		t.Fatal(err)
	}
	if err := p.Step(ans); !errors.Is(err, ErrUnexpected) {
		t.Fatalf("second answer: %v", err)
	}
	wrongID := Message{Type: MsgEvalRefused, From: id(1), ReqID: 101, Reason: ReasonPolicy}
	if err := p.Step(wrongID); !errors.Is(err, ErrUnexpected) {
		t.Fatalf("reply with another target's ID: %v", err)
	}
	stranger := Message{Type: MsgEvalRefused, From: id(7), ReqID: 100, Reason: ReasonPolicy}
	if err := p.Step(stranger); !errors.Is(err, ErrUnexpected) {
		t.Fatalf("reply from a stranger: %v", err)
	}
	if err := p.Step(Message{Type: MsgEvalRefused, From: id(1), ReqID: 100, Reason: ReasonRateLimited}); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		p.Tick()
		if p.Done() {
			t.Fatal("done before the deadline with a target pending")
		}
	}
	p.Tick()
	if !p.Done() {
		t.Fatal("not done at the deadline")
	}
	got := p.Results()
	want := []Result{
		{Peer: id(1), Status: Refused, Reason: ReasonRateLimited},
		{Peer: id(2), Status: Answered, Loss: 0.25, Accuracy: 0.5, Samples: 10},
		{Peer: id(3), Status: TimedOut},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if err := p.Step(Message{Type: MsgEvalResult, From: id(3), ReqID: 102, Loss: 1, Accuracy: 0, Samples: 1}); !errors.Is(err, ErrUnexpected) {
		t.Fatalf("late reply: %v", err)
	}
}

func TestPollRejects(t *testing.T) {
	cfg := PollConfig{ID: id(9), FirstReqID: 1, Timeout: 1, Model: ModelHeader{Arch: "m", NumParams: 1}}
	one := []float32{0}
	cases := []struct {
		cfg     PollConfig
		targets []ident.Peer
		params  []float32
		want    error
	}{
		{cfg, nil, one, ErrTargets},
		{cfg, []ident.Peer{id(1), id(1)}, one, ErrTargets},
		{cfg, []ident.Peer{id(9)}, one, ErrTargets},
		{cfg, []ident.Peer{id(1)}, []float32{0, 0}, ErrConfig},
		{PollConfig{ID: id(9), FirstReqID: 0, Timeout: 1, Model: cfg.Model}, []ident.Peer{id(1)}, one, ErrConfig},
		{PollConfig{ID: id(9), FirstReqID: ^uint64(0), Timeout: 1, Model: cfg.Model}, []ident.Peer{id(1), id(2)}, one, ErrConfig},
		{PollConfig{ID: id(9), FirstReqID: 1, Timeout: 0, Model: cfg.Model}, []ident.Peer{id(1)}, one, ErrConfig},
	}
	for i, c := range cases {
		if _, _, err := NewPoll(c.cfg, c.targets, c.params); !errors.Is(err, c.want) {
			t.Errorf("case %d: %v, want %v", i, err, c.want)
		}
	}
}
