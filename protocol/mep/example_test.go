package mep_test

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A learning loop drives each peer's state machine: feed it neighbours,
// tick it, hand it what arrives, and serve its Ready. Here two peers with
// periods 3 and 4 share an in-process "transport" (delivery on the next
// tick), aggregate with DecAvg and "train" by adding 1 to every
// parameter. Peer 1 publishes a model every 3 ticks (8 versions) but
// offers at most once per pair period max(3, 4) = 4, so only 5 of them
// reach peer 2, each the newest at the time.
func Example() {
	ids := []ident.Peer{{1}, {2}}
	periods := []int{3, 4}
	peers := make([]*mep.Peer, 2)
	for i := range peers {
		cfg := mep.DefaultConfig()
		cfg.ID, cfg.Task, cfg.Arch, cfg.NumParams = ids[i], ident.Task{7}, "toy-2", 2
		cfg.Period, cfg.DataSize = periods[i], 100*(i+1)
		p, err := mep.New(cfg)
		if err != nil {
			panic(err)
		}
		peers[i] = p
	}
	// From the overlay: each peer's neighbours and their periods.
	if peers[0].SetNeighbors([]mep.Neighbor{{ID: ids[1], Period: 4}}) != nil ||
		peers[1].SetNeighbors([]mep.Neighbor{{ID: ids[0], Period: 3}}) != nil {
		panic("neighbours")
	}

	var inTransit []mep.Message
	agg := aggregate.DecAvg{}
	for tick := 1; tick <= 24; tick++ {
		for _, p := range peers {
			p.Tick()
		}
		arriving := inTransit
		inTransit = nil
		for _, m := range arriving {
			// A real transport sends mep.Encode(m) and, for a MsgModel,
			// m.Params (and m.Hessian) in chunks; the receiver decodes
			// and passes the message to Step.
			if err := peers[m.To[0]-1].Step(m); err != nil {
				fmt.Println("dropped:", err)
			}
		}
		for i, p := range peers {
			rd := p.Ready()
			inTransit = append(inTransit, rd.Messages...)
			if r := rd.Round; r != nil {
				work := make([]float32, 2) // a fresh buffer: published models are shared
				if self, others, ok := r.Inputs(); ok {
					if _, err := agg.Aggregate(self, others, work); err != nil {
						p.AbortRound()
						continue
					}
				} else { // RoundInit: initialise locally
					work[0], work[1] = float32(10*i), 0
				}
				for j := range work { // local training
					work[j]++
				}
				if _, err := p.ReportTrained(work, nil); err != nil {
					panic(err)
				}
			}
		}
	}
	for i, p := range peers {
		v, _ := p.Model()
		s := p.Stats()
		fmt.Printf("peer %d: version %d, models sent %d, received %d\n", i+1, v, s.ModelsSent, s.ModelsReceived)
	}
	// Output:
	// peer 1: version 8, models sent 5, received 5
	// peer 2: version 6, models sent 5, received 5
}
