package method

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/protocol/gossip"
	"github.com/peerlearn/peerlearn/types/ident"
)

func pid(b byte) ident.Peer { return ident.Peer{b, 0x6d} }

// cores builds two cores of a method on peers 1 and 2, each the other's
// only peer.
func cores(t *testing.T, name string) [2]Core {
	t.Helper()
	var out [2]Core
	for i := range out {
		var err error
		init := []float32{float32(i), 1}
		switch name {
		case "gossip":
			out[i], err = NewGossip(gossip.Config{ID: pid(byte(i + 1)), Arch: "t", NumParams: 2, Period: 2}, rand.New(rand.NewPCG(1, uint64(i))), init, 0)
		case "dpsgd":
			out[i], err = NewDPSGD(gossip.RoundConfig{ID: pid(byte(i + 1)), Arch: "t", NumParams: 2, Timeout: 5}, init)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := out[i].SetPeers([]ident.Peer{pid(byte(2 - i))}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// Both cores exchange models through encoded headers and payloads, ask
// for trainings, and refuse a header whose sender is not the peer it
// came from, or one without its payload.
func TestCoresExchange(t *testing.T) {
	for _, name := range []string{"gossip", "dpsgd"} {
		cs := cores(t, name)
		var forged []Send
		for tick := 0; tick < 20; tick++ {
			for i, c := range cs {
				c.Tick()
				for c.HasReady() {
					rd := c.Ready()
					for _, s := range rd.Sends {
						if err := cs[1-i].Step(pid(byte(i+1)), s.Header, s.Params); err != nil {
							t.Fatalf("%s: step: %v", name, err)
						}
						if i == 0 {
							forged = append(forged, s)
						}
					}
					if rd.Train != nil {
						for k := range rd.Train.Params {
							rd.Train.Params[k] += 0.5 // a "training"
						}
						if err := c.Trained(rd.Train.Params, 10); err != nil {
							t.Fatalf("%s: trained: %v", name, err)
						}
					}
				}
			}
		}
		for i, c := range cs {
			st := c.Status()
			if st.Method != name || st.ModelsSent == 0 || st.ModelsReceived == 0 || st.Round < 2 || c.Model() == nil {
				t.Errorf("%s core %d: status %+v", name, i, st)
			}
		}
		if len(forged) == 0 {
			t.Fatalf("%s: nothing sent", name)
		}
		s := forged[0]
		if err := cs[1].Step(pid(9), s.Header, s.Params); !errors.Is(err, ErrForged) {
			t.Errorf("%s: forged sender: %v", name, err)
		}
		if err := cs[1].Step(pid(1), s.Header, nil); !errors.Is(err, ErrPayload) {
			t.Errorf("%s: no payload: %v", name, err)
		}
		if err := cs[1].Step(pid(1), s.Header[:5], s.Params); err == nil {
			t.Errorf("%s: truncated header accepted", name)
		}
	}
}
