package methodsim

import (
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/types/ident"
)

// CoreRun drives FedLay's core (node.FedLay, as a real peer runs it
// through node.Method, driven by node.Node) on virtual time: its rounds are Jobs
// on the peers' compute, its MEP messages travel the links, DecHW's
// Hessian goes along as Send.Rest, and every peer stops at max_rounds.
func TestCoreRunFedLay(t *testing.T) {
	perModel := map[string]float64{} // bytes sent per model sent, control messages included
	for _, agg := range []string{"fedlay", "dechw"} {
		t.Run(agg, func(t *testing.T) {
			const n, period, rounds = 6, 10, 3
			arch, err := nn.ArchFor("mlp", [3]int{1, 16, 1}, 4)
			if err != nil {
				t.Fatal(err)
			}
			cfg := learn.DefaultConfig()
			cfg.Arch, cfg.Batch, cfg.LocalSteps = arch, 8, 4
			cfg.Optimizer = learn.OptimizerConfig{Name: "sgd", LR: 0.1}
			cfg.Aggregator = agg
			cfg.MEP.Period, cfg.MEP.JoinWait, cfg.MEP.MaxRounds = period, period, rounds
			peers, err := Population{Train: blobs(40*n, 1), Partition: "iid", N: n, Seed: 3, Config: cfg}.Build()
			if err != nil {
				t.Fatal(err)
			}
			dev, links := tinyDevices(t, n)
			pool := NewPool(2)
			defer pool.Close()
			cores := make([]method.Core, n)
			graph := make([][]int, n)
			for i := range n {
				c, err := node.NewFedLay(node.FedLayConfig{Peer: peers.Peers[i], Period: func(ident.Peer) int { return period },
					Tick: 100 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				cores[i] = c
				for j := range n {
					if j != i {
						graph[i] = append(graph[i], j)
					}
				}
			}
			res, err := CoreRun{Peers: peers, Devices: dev, Links: links, Cores: cores, Graph: graph,
				Tick: 100 * time.Millisecond, Duration: 10 * time.Minute, EvalSamples: 20, Pool: pool}.Run()
			if err != nil {
				t.Fatal(err)
			}
			if !res.Done || res.StepErrors != 0 || res.TrainFailures != 0 {
				t.Fatalf("done %v after %v, %d step errors, %d failed trainings", res.Done, res.Time, res.StepErrors, res.TrainFailures)
			}
			for i, st := range res.Statuses {
				if st.Method != "fedlay" || st.Round != rounds || st.Role != "done" || st.ModelsReceived == 0 {
					t.Errorf("peer %d: %+v; want %d rounds, done, models received", i, st, rounds)
				}
				if a := res.Ledger.Peer(i); a.Trainings != rounds || a.ModelsReceived == 0 {
					t.Errorf("peer %d: ledger %+v; want %d trainings and models received", i, a, rounds)
				}
				if res.Models[i] == nil {
					t.Errorf("peer %d: no model", i)
				}
			}
			a := res.Ledger.Total()
			perModel[agg] = float64(a.BytesSent) / float64(a.ModelsSent)
			t.Logf("%d models, %d bytes in all (%d parameters a model)", a.ModelsSent, a.BytesSent, peers.Peers[0].NumParams())
		})
	}
	// Under DecHW a model carries its Hessian: twice the values of a
	// model without, on the wire.
	if perModel["dechw"] < 1.5*perModel["fedlay"] {
		t.Errorf("bytes a model: %.0f under DecHW, %.0f under FedLay: no Hessian sent", perModel["dechw"], perModel["fedlay"])
	}
}
