package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/sim/methodsim"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The part of `sim train` that runs a task spec (-spec) as its real
// peers would: the same shards (k of n), the same learning peers
// (learnerOn), the same method cores (node.NewCore), the overlay's
// neighbour sets for the peers' IDs, in virtual time (methodsim.CoreRun).

// liveEvalSamples is the test samples each peer's final model is
// measured on (the real peers' -eval-samples in bench live).
const liveEvalSamples = 1000

// liveKey is peer i's key seed: bench live's real peers use the same, so
// both runs have the same IDs, hence the same overlay.
func liveKey(i int) []byte {
	b := make([]byte, 32)
	copy(b, "peerlearn bench live")
	b[31] = byte(i)
	return b
}

// specOutcome is a spec's run: mean own-distribution test accuracy of
// the final models, and for PENS the precision of the kept neighbours.
type specOutcome struct {
	acc, precision float64
	rounds         int
	took           time.Duration
	// place is the placement real peers reported (nil in the simulator).
	place func(ident.Peer, int) overlay.Coord
	// speeds are the samples a second each real peer trained at (nil in
	// the simulator).
	speeds []float64
}

// simSpec runs spec on n peers in the simulator, on the overlay of
// their IDs placed by place (nil: overlay.Coordinate, the plain
// placement; real peers admitted by a signalling server sit where their
// tokens place them, which bench live passes here), peer i training
// speeds[i] samples a second (bench live: what real peer i did, load
// included; nil: every peer as fast as this machine trains alone,
// trainSpeed).
func simSpec(ctx context.Context, spec task.Spec, n int, dir string, place func(ident.Peer, int) overlay.Coord, speeds []float64, logf func(string, ...any)) (specOutcome, error) {
	if speeds != nil && len(speeds) != n {
		return specOutcome{}, fmt.Errorf("%d training speeds for %d peers", len(speeds), n)
	}
	for _, v := range speeds {
		if !(v > 0) || math.IsInf(v, 0) {
			return specOutcome{}, fmt.Errorf("training speed %v samples/s", v)
		}
	}
	if spec.MethodOf() == "fedlay" {
		return specOutcome{}, fmt.Errorf("%w: -spec runs the methods with a core (gossip, dpsgd, pens, plexus); fedlay's scenarios are -scenario", errUsage)
	}
	train, test, err := data.Load(os.DirFS(dir), spec.Dataset)
	if err != nil {
		return specOutcome{}, err
	}
	if speeds == nil {
		speed, err := trainSpeed(spec, train, test, n)
		if err != nil {
			return specOutcome{}, err
		}
		speeds = slices.Repeat([]float64{speed}, n)
	}
	const tick = 100 * time.Millisecond
	sp, err := specPeers(spec, n, train, test, tick, place)
	if err != nil {
		return specOutcome{}, err
	}
	peers, cores, tests, graph := sp.peers, sp.cores, sp.tests, sp.graph
	devs := make([]methodsim.Device, n)
	for i := range devs {
		devs[i] = methodsim.Device{Speed: speeds[i], Bandwidth: 20e6} // loopback peers
	}
	links, err := methodsim.NewLinks(devs, time.Millisecond, 2*time.Millisecond, 1)
	if err != nil {
		return specOutcome{}, err
	}
	pool := methodsim.NewPool(0)
	defer pool.Close()
	t0 := time.Now()
	res, err := methodsim.CoreRun{Peers: peers, Devices: devs, Links: links, Cores: cores, Graph: graph,
		Tick: tick, Duration: time.Hour, EvalSamples: 256, Pool: pool, Ctx: ctx}.Run()
	if err != nil {
		return specOutcome{}, err
	}
	if !res.Done {
		return specOutcome{}, fmt.Errorf("sim: not every peer finished its %d rounds in %v of virtual time", spec.MaxRounds, res.Time)
	}
	out := specOutcome{took: time.Since(t0), rounds: spec.MaxRounds}
	ev, err := learn.NewEvaluator(peers.Peers[0].Config().Arch)
	if err != nil {
		return out, err
	}
	accs := make([]float64, n)
	for i, m := range res.Models {
		t := tests[i]
		k := min(t.Len(), liveEvalSamples)
		mt, err := ev.Evaluate(m, t.X[:k*t.Features()], t.Y[:k])
		if err != nil {
			return out, err
		}
		accs[i] = mt.Accuracy
		out.acc += mt.Accuracy / float64(n)
	}
	trainings := make([]int, n)
	for i := range trainings {
		trainings[i] = int(res.Ledger.Peer(i).Trainings)
	}
	logStatuses(logf, "sim", res.Statuses, trainings, accs, peers.IDs)
	out.precision = precision(res.Statuses, func(i int) int { return i }, peers.IDs, rotatedOf(spec, train, n))
	logf("sim: %s on %d peers training %.0f samples/s: %v of virtual time, mean accuracy %.4f", spec.MethodOf(), n, speeds, res.Time.Round(time.Second), out.acc)
	return out, nil
}

// rotatedOf says which of the n shards of spec's partition are rotated.
func rotatedOf(spec task.Spec, train *data.Dataset, n int) []bool {
	shards, err := data.Partition(train, spec.Partition.Spec, n, data.NewRand(spec.Partition.Seed))
	if err != nil {
		return nil
	}
	out := make([]bool, n)
	for i, s := range shards {
		out[i] = s.Rotated
	}
	return out
}

// precision is the share of PENS's kept neighbours (over every peer) in
// the peer's own rotation cluster; 0 without any. shard maps a status
// index to its shard, ids lists the peers by shard.
func precision(sts []method.Status, shard func(int) int, ids []ident.Peer, rotated []bool) float64 {
	if rotated == nil {
		return 0
	}
	index := map[ident.Peer]int{}
	for i, id := range ids {
		index[id] = i
	}
	right, all := 0, 0
	for i, s := range sts {
		for _, nb := range s.Neighbours {
			j, ok := index[nb]
			if !ok {
				continue
			}
			all++
			if rotated[j] == rotated[shard(i)] {
				right++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(right) / float64(all)
}

// specSetup is a spec's n peers as its real peers are built: learning
// peers on shards k of n, method cores (node.NewCore; none for
// FedLay, whose MEP the learning peer runs), each peer's
// own-distribution test set, and the overlay's neighbour sets.
type specSetup struct {
	peers *methodsim.Peers
	cores []method.Core
	tests []*data.Dataset
	graph [][]int
}

// specPeers builds spec's n peers (IDs from liveKey), placed on the
// overlay by place (nil: overlay.Coordinate).
func specPeers(spec task.Spec, n int, train, test *data.Dataset, tick time.Duration, place func(ident.Peer, int) overlay.Coord) (specSetup, error) {
	var sp specSetup
	peers := &methodsim.Peers{Index: map[ident.Peer]int{}}
	quiet := func(string, ...any) {}
	for i := range n {
		id, err := signal.IdentityFromSeed(liveKey(i))
		if err != nil {
			return sp, err
		}
		pid := id.ID()
		lp, own, err := learnerOn(spec, pid, train, test, "", i, n, tick, nil, quiet)
		if err != nil {
			return sp, err
		}
		if spec.MethodOf() != "fedlay" { // FedLay's MEP is learn.Peer's own
			core, err := node.NewCore(spec, lp)
			if err != nil {
				return sp, err
			}
			sp.cores = append(sp.cores, core)
		}
		peers.Peers = append(peers.Peers, lp)
		peers.Local = append(peers.Local, lp.Local())
		peers.IDs = append(peers.IDs, pid)
		peers.Index[pid] = i
		sp.tests = append(sp.tests, own)
	}
	if place == nil {
		place = overlay.Coordinate
	}
	tables := overlay.ExpectedTablesAt(peers.IDs, spec.OverlaySpaces(), place)
	sp.graph = make([][]int, n)
	for i, id := range peers.IDs {
		for _, nb := range tables[id].Neighbors() {
			sp.graph[i] = append(sp.graph[i], peers.Index[nb])
		}
	}
	sp.peers = peers
	return sp, nil
}
