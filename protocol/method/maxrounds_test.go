package method

import (
	"testing"

	"github.com/peerlearn/peerlearn/protocol/evalreq"
	"github.com/peerlearn/peerlearn/protocol/selection"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A PENS core trains MaxRounds times, round 0 included, like Gossip and
// D-PSGD (a task's max_rounds is a peer's trainings whatever its method):
// it trained MaxRounds + 1 times (issue #23).
func TestPENSTrainsMaxRounds(t *testing.T) {
	for _, max := range []int{1, 2, 5} {
		c, err := NewPENS(PENSConfig{ID: pid(1), Arch: "t", NumParams: 1, Policy: selection.DefaultConfig(selection.KindLocal),
			Timeout: 5, MaxRounds: max, Responder: evalreq.DefaultResponderConfig(), AnswerBurst: 1}, []float32{0})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SetPeers([]ident.Peer{pid(2)}); err != nil {
			t.Fatal(err)
		}
		trainings := 0
		for range 3 * max { // bounded: a core that never ends fails below
			rd := c.Ready()
			if rd.Train == nil {
				c.Tick()
				continue
			}
			trainings++
			if err := c.Trained(rd.Train.Params, 1); err != nil {
				t.Fatal(err)
			}
		}
		if st := c.Status(); trainings != max || st.Role != "done" {
			t.Errorf("MaxRounds %d: %d trainings, role %q", max, trainings, st.Role)
		}
	}
}
