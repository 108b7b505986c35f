package learn

import (
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/protocol/mep"
)

func mean(xs []float64) float64 { return Summarize(xs).Mean }

// Isolated peers see three classes each and stay near 75%; the same peers
// averaging with their neighbours in synchronous rounds learn all four.
func TestSyncPeersLearnTogether(t *testing.T) {
	tk := newTask(t, 8, 120, 1)
	alone := newPeers(t, tk, func(_ int, c *Config) { c.Aggregator = "decavg" })
	syncRounds(t, alone, make([][]int, 8), 25, false)
	together := newPeers(t, tk, func(_ int, c *Config) { c.Aggregator = "decavg" })
	syncRounds(t, together, ringPlus(8), 25, true)
	accAlone, accTogether := mean(accuracies(t, tk, alone)), mean(accuracies(t, tk, together))
	t.Logf("mean test accuracy: alone %.3f, together %.3f", accAlone, accTogether)
	if accAlone > 0.76 || accTogether < 0.85 {
		t.Fatalf("alone %.3f (want <= 0.76), together %.3f (want >= 0.85)", accAlone, accTogether)
	}
	m := together[0].Metrics()
	if m.Rounds != 25 || m.SamplesTrained != 25*120 || m.ModelsReceived != 24*4 || m.ModelBytesSent != 24*4*4*int64(together[0].NumParams()) {
		t.Fatalf("metrics %+v", m)
	}
}

// The same in asynchronous mode through the MEP, with FedLay's confidence
// aggregation and heterogeneous periods.
func TestAsyncPeersLearnTogether(t *testing.T) {
	tk := newTask(t, 8, 120, 2)
	peers := newPeers(t, tk, func(i int, c *Config) { c.MEP.Period = []int{4, 3, 8}[i%3] })
	net := newAsyncNet(t, peers, ringPlus(8))
	net.parallel = true
	net.run(100)
	acc := accuracies(t, tk, peers)
	t.Logf("accuracies %.3f", acc)
	if s := Summarize(acc); s.Mean < 0.85 || s.Min < 0.8 {
		t.Fatalf("accuracy %+v, want mean >= 0.85 and min >= 0.8", s)
	}
	var models uint64
	for _, p := range peers {
		m := p.Metrics()
		models += m.ModelsReceived
		if m.Rounds < 5 || m.ModelBytesReceived == 0 || m.ControlBytesSent == 0 || m.Refused.Total() != 0 {
			t.Fatalf("peer %v metrics %+v", p.Config().ID, m)
		}
	}
	if net.stepErrs != 0 || models == 0 {
		t.Fatalf("%d step errors, %d models received", net.stepErrs, models)
	}
}

// A contribution that is not finite, of another architecture or of
// another length is refused and counted; the result is what the good
// neighbours alone give.
func TestSyncRefusesBadModels(t *testing.T) {
	tk := newTask(t, 3, 60, 3)
	build := func() []*Peer { return newPeers(t, tk, nil) }
	bad, twin := build(), build()
	syncRounds(t, bad, [][]int{{1}, {0}, {}}, 1, false)
	syncRounds(t, twin, [][]int{{1}, {0}, {}}, 1, false)

	good, _ := bad[1].Contribution()
	nan := good
	nan.From, nan.Params = peerID(50), append([]float32(nil), good.Params...)
	nan.Params[7] = float32(math.NaN())
	inf := nan
	inf.From, inf.Params = peerID(51), append([]float32(nil), good.Params...)
	inf.Params[0] = float32(math.Inf(1))
	arch := good
	arch.From, arch.Arch = peerID(52), "dechw-cnn/0000000000000000"
	short := good
	short.From, short.Params = peerID(53), good.Params[:len(good.Params)-1]

	var logged []string
	bad[0].cfg.Logf = func(f string, a ...any) { logged = append(logged, f) }
	w, err := bad[0].SyncWork([]aggregate.Contribution{nan, good, arch, inf, short})
	if err != nil {
		t.Fatal(err)
	}
	w.Run()
	if err := bad[0].Finish(w); err != nil {
		t.Fatal(err)
	}
	goodTwin, _ := twin[1].Contribution()
	w2, _ := twin[0].SyncWork([]aggregate.Contribution{goodTwin})
	w2.Run()
	if err := twin[0].Finish(w2); err != nil {
		t.Fatal(err)
	}
	r := bad[0].Metrics().Refused
	if r != (Refusals{NonFinite: 2, Arch: 1, Length: 1}) || len(logged) != 4 {
		t.Fatalf("refusals %+v, %d logged", r, len(logged))
	}
	got, want := bad[0].Published(), twin[0].Published()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("parameter %d: %v with bad models offered, %v without", i, got[i], want[i])
		}
	}
}

// Over the MEP: a model with a wrong fingerprint is refused on receipt
// (mep.ErrBadModel); a NaN model with a correct fingerprint passes the MEP
// and is refused by the aggregation, never averaged.
func TestAsyncRefusesBadModels(t *testing.T) {
	tk := newTask(t, 4, 60, 4)
	peers := newPeers(t, tk, nil)
	net := newAsyncNet(t, peers, ringPlus(4))
	net.run(10)
	good := peers[1].Published()
	bad := append([]float32(nil), good...)
	bad[3] = float32(math.NaN())
	hdr := mep.ModelHeader{
		Task: peers[0].mepConfig().Task, Arch: peers[1].ArchTag(), NumParams: uint32(len(bad)),
		DataSize: 60, Period: 4, DataConf: 0.5,
	}
	msg := mep.Message{Type: mep.MsgModel, From: peerID(1), To: peerID(0), Version: 1 << 40, Model: hdr, Params: bad}
	msg.Fingerprint = mep.FingerprintOf(good, nil) // wrong for bad
	if err := peers[0].Step(msg); !errors.Is(err, mep.ErrBadModel) {
		t.Fatalf("Step(wrong fingerprint) = %v, want mep.ErrBadModel", err)
	}
	msg.Fingerprint = mep.FingerprintOf(bad, nil)
	if err := peers[0].Step(msg); err != nil {
		t.Fatalf("Step(NaN model, right fingerprint) = %v", err)
	}
	before := peers[0].Metrics().Rounds
	net.run(8)
	m := peers[0].Metrics()
	if m.ModelsRejected != 1 || m.Dropped != 1 || m.Refused.NonFinite == 0 || m.Rounds <= before {
		t.Fatalf("metrics %+v", m)
	}
	for i, v := range peers[0].Published() {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatalf("published parameter %d is %v", i, v)
		}
	}
}
