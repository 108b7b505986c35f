//go:build js && wasm

package main

import (
	"encoding/hex"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// pageStatus is what the page shows; peer.status() returns it and a
// "status" event carries it twice a second.
type pageStatus struct {
	ID       string    `json:"id"`
	Short    string    `json:"short"`
	Task     string    `json:"task"`
	TaskName string    `json:"task_name"`
	State    string    `json:"state"`
	Error    string    `json:"error,omitempty"`
	Waiting  string    `json:"waiting,omitempty"` // why the peer waits for the server (it retries by itself)
	UptimeS  float64   `json:"uptime_s"`
	Kernels  string    `json:"kernels"` // f32's kernels: "simd128" or "go"
	Spaces   int       `json:"spaces"`
	Coords   []float64 `json:"coords"` // this peer's ring coordinates in [0,1)
	// Neighbors are the overlay neighbours, with their coordinates and
	// the ring spaces in which each is this peer's predecessor or successor.
	Neighbors   []neighborView    `json:"neighbors"`
	Connections int               `json:"connections"`
	BytesIn     uint64            `json:"bytes_in"`
	BytesOut    uint64            `json:"bytes_out"`
	RTC         rtc.Stats         `json:"rtc"`
	OverlaySent map[string]uint64 `json:"overlay_sent,omitempty"`
	OverlayRecv map[string]uint64 `json:"overlay_received,omitempty"`
	Trainer     *trainerView      `json:"trainer"` // where local training runs (trainerview.go)
	Data        *dataView         `json:"data,omitempty"`
	Learn       *learnView        `json:"learn,omitempty"`
	History     *history          `json:"history,omitempty"`
	// InitGain is the network-size estimate and the init gain of a task
	// with init he-gain and gain 0 (netpeer's, as on /status).
	InitGain *netpeer.InitGainStatus `json:"init_gain,omitempty"`
	// Observers are the observers (`peerlearn collect`) this tab serves
	// its model to: not neighbours, nothing of theirs is aggregated
	// (netpeer's, as on /status).
	Observers []netpeer.ObserverStatus `json:"observers,omitempty"`
	// Summaries counts the summaries sent to the server (nil unless the
	// volunteer shares progress).
	Summaries *netpeer.SummaryStatus `json:"summaries,omitempty"`
	// Moves counts the neighbourhood check's requests for a new place
	// and the moves made (netpeer's, as on /status; nil unless the
	// check runs and may move, or has asked): Previous are the IDs the
	// tab left.
	Moves *netpeer.MoveStatus `json:"moves,omitempty"`
	// Controls are the volunteer's pause and CPU share, and what the
	// training has given (controls.go).
	Controls controlsView `json:"controls"`
}

type neighborView struct {
	ID        string    `json:"id"`
	Short     string    `json:"short"`
	Coords    []float64 `json:"coords"`
	Connected bool      `json:"connected"`
	// Path, Local and Remote describe the open link's selected ICE
	// pair (rtc.Link): "direct" or "relay", and the candidate types.
	Path   string `json:"path,omitempty"`
	Local  string `json:"local,omitempty"`
	Remote string `json:"remote,omitempty"`
	PredOf []int  `json:"pred_in"` // ring spaces where it is the predecessor
	SuccOf []int  `json:"succ_in"` // ... the successor
}

type dataView struct {
	Source  string `json:"source"`
	Dataset string `json:"dataset"`
	Shard   string `json:"shard"`
	// Rotated: the shard is of a rotated cluster (partition "+rotate:F"):
	// its images and the test set it is measured on are rotated 180°.
	Rotated bool  `json:"rotated"`
	Samples int   `json:"samples"`
	Test    int   `json:"test_samples"`
	Hist    []int `json:"labels"`
	// Light: the server's light files (the shard and a test subset);
	// else the whole dataset was fetched and cut here. Fetched: the data
	// bytes received (bodies; the page adds what the wire carried).
	Light   bool  `json:"light"`
	Fetched int64 `json:"fetched_bytes"`
}

type learnView struct {
	// Method is the task's method and this peer's role in its round (nil:
	// FedLay's MEP).
	Method          *method.Status `json:"method,omitempty"`
	Arch            string         `json:"arch"`
	Params          int            `json:"params"`
	Rounds          int            `json:"rounds"`
	TrainLoss       float64        `json:"train_loss"`
	SamplesTrained  int64          `json:"samples_trained"`
	SamplesPerRound int            `json:"samples_per_round"`
	Batch           int            `json:"batch"`
	Epoch           float64        `json:"epoch"`          // passes over the local shard so far
	EpochProgress   float64        `json:"epoch_progress"` // fraction of the current pass done
	PeriodMS        int64          `json:"period_ms"`
	Capped          string         `json:"capped,omitempty"`
	TrainSPS        float64        `json:"train_sps"`
	ModelsSent      uint64         `json:"models_sent"`
	ModelsReceived  uint64         `json:"models_received"`
	ModelsRejected  uint64         `json:"models_rejected"`
	TransfersFailed int            `json:"transfers_failed"`
	ModelBytesIn    int64          `json:"model_bytes_in"`
	ModelBytesOut   int64          `json:"model_bytes_out"`
	// Codec is the task's model codec ("" for float32 as it is);
	// ModelBytesRaw and ModelBytesWire the model bytes sent as float32
	// and as encoded: the page shows what the codec saved.
	Codec          string `json:"codec,omitempty"`
	ModelBytesRaw  int64  `json:"model_bytes_raw,omitempty"`
	ModelBytesWire int64  `json:"model_bytes_wire,omitempty"`
	// What the robust aggregation did with the neighbours' models, per
	// reason and per neighbour (netpeer.LearnStatus): the page tells the
	// volunteer in words.
	ModelsClipped    int                `json:"models_clipped"`
	ModelsBounded    int                `json:"models_bounded"`
	ModelsRefused    map[string]int     `json:"models_refused,omitempty"`
	NeighborsDropped int                `json:"neighbors_dropped"`
	Offenders        []netpeer.Offender `json:"offenders,omitempty"`
	// Health is the neighbourhood check's, when the volunteer runs it.
	Health *netpeer.HealthStatus `json:"health,omitempty"`
	// The latest evaluations on the test sample: the published model and
	// the neighbourhood model (the aggregate of the neighbours' models
	// the last round started from).
	Accuracy      float64 `json:"accuracy"`
	Loss          float64 `json:"loss"`
	MixedAccuracy float64 `json:"neighbors_accuracy"`
	EvalRound     int     `json:"eval_round"`
	Evals         int     `json:"evals"`
	EvalMS        float64 `json:"eval_ms"`
	// EvalFinal says the last evaluation was of the method's final
	// model (its role "done" when the model was read), as on a native
	// peer (netpeer.LearnStatus).
	EvalFinal bool `json:"eval_final,omitempty"`
}

// history holds the chart series (at most histCap points each).
type history struct {
	T         []float64 `json:"t"` // seconds since join
	Accuracy  []float64 `json:"accuracy"`
	Loss      []float64 `json:"loss"`
	Neighbors []float64 `json:"neighbors_accuracy"`
	RoundT    []float64 `json:"round_t"`
	TrainLoss []float64 `json:"train_loss"`
	lastAcc   float64
	lastLoss  float64
	lastMixed float64
	evals     int
	evalRound int
	evalMS    float64
	evalFinal bool
}

const histCap = 600

func push(s []float64, v float64) []float64 {
	if len(s) >= histCap {
		s = s[1:]
	}
	return append(s, v)
}

// clone copies s, never nil (the page gets [] rather than null).
func clone(s []float64) []float64 { return append([]float64{}, s...) }

func coords(id ident.Peer, spaces int) []float64 {
	c := make([]float64, spaces)
	for i := range c {
		c[i] = overlay.Coordinate(id, i).Float()
	}
	return c
}

func parseID(s string) ident.Peer {
	var id ident.Peer
	b, _ := hex.DecodeString(s)
	copy(id[:], b)
	return id
}

// status builds the page's snapshot.
func (b *browserPeer) status() pageStatus {
	tv := b.trainerView()
	b.mu.Lock()
	np, lp, ds, spec, state := b.np, b.lp, b.ds, b.spec, b.state
	spaces := 0 // the task's L, known once the welcome has brought the spec
	if spec != nil {
		spaces = spec.OverlaySpaces()
	}
	ps := pageStatus{
		ID: b.identity.ID().Hex(), Short: b.id.String(), Task: b.opts.Task.Hex(), TaskName: b.opts.TaskName,
		State: state, Error: b.lastErr, Spaces: spaces, Coords: coords(b.id, spaces),
		Neighbors: []neighborView{}, Kernels: f32.Kernels(), Controls: b.ctl.view(), Trainer: &tv,
	}
	if !b.started.IsZero() {
		ps.UptimeS = time.Since(b.started).Seconds()
	}
	h := b.hist
	h.T, h.Accuracy, h.Loss, h.Neighbors = clone(h.T), clone(h.Accuracy), clone(h.Loss), clone(h.Neighbors)
	h.RoundT, h.TrainLoss = clone(h.RoundT), clone(h.TrainLoss)
	spr, capped, sps, lcfg := b.spr, b.capped, b.trainSPS, b.lcfg
	b.mu.Unlock()
	ps.History = &h
	if spec != nil {
		ps.TaskName = spec.Name
	}
	if ds != nil {
		ps.Data = &dataView{Source: ds.source, Dataset: ds.dataset, Shard: ds.shard, Rotated: ds.rotated, Samples: ds.local.Len(), Hist: ds.hist,
			Light: ds.light, Fetched: ds.fetched}
		if ds.test != nil {
			ps.Data.Test = ds.test.Len()
		}
	}
	if np == nil {
		return ps
	}
	st := np.Status()
	if cs, ok := st.Placement[ps.ID]; ok { // admitted placement: the token's coordinates
		ps.Coords = cs
	}
	ps.Connections = len(st.Connections)
	ps.BytesIn, ps.BytesOut, ps.RTC = st.RTC.BytesIn, st.RTC.BytesOut, st.RTC
	ps.Waiting = st.Waiting
	ps.InitGain, ps.Summaries = st.InitGain, st.Summaries
	ps.Moves = st.Moves
	ps.Observers = st.Observers
	ps.OverlaySent, ps.OverlayRecv = st.OverlaySent, st.OverlayReceived
	for _, n := range st.Neighbors {
		id := parseID(n)
		nv := neighborView{ID: n, Short: id.String(), Coords: coords(id, spaces), Connected: slices.Contains(st.Connections, n)}
		if i := slices.IndexFunc(st.Links, func(l rtc.Link) bool { return l.Peer == n }); i >= 0 {
			nv.Path, nv.Local, nv.Remote = st.Links[i].Path, st.Links[i].Local, st.Links[i].Remote
		}
		if cs, ok := st.Placement[n]; ok {
			nv.Coords = cs
		}
		for i, a := range st.Table {
			if a.Pred == n {
				nv.PredOf = append(nv.PredOf, i)
			}
			if a.Succ == n {
				nv.SuccOf = append(nv.SuccOf, i)
			}
		}
		ps.Neighbors = append(ps.Neighbors, nv)
	}
	if lp != nil {
		ps.Learn = learnStatus(lp, lcfg, st.Learn, spr, ds.local.Len(), capped, sps, b.opts.Tick)
		ps.Learn.Accuracy, ps.Learn.Loss, ps.Learn.MixedAccuracy = h.lastAcc, h.lastLoss, h.lastMixed
		ps.Learn.EvalRound, ps.Learn.Evals, ps.Learn.EvalMS, ps.Learn.EvalFinal = h.evalRound, h.evals, h.evalMS, h.evalFinal
	}
	return ps
}

func learnStatus(lp *learn.Peer, cfg learn.Config, ls *netpeer.LearnStatus, spr, shard int, capped string, sps float64, tick time.Duration) *learnView {
	mt := lp.Metrics()
	lv := &learnView{
		Arch: lp.ArchTag(), Params: lp.NumParams(), Rounds: mt.Rounds, TrainLoss: mt.TrainLoss,
		SamplesTrained: mt.SamplesTrained, SamplesPerRound: spr, Batch: cfg.Batch,
		PeriodMS: (time.Duration(cfg.MEP.Period) * tick).Milliseconds(),
		Capped:   capped, TrainSPS: sps,
		ModelsSent: mt.ModelsSent, ModelsReceived: mt.ModelsReceived, ModelsRejected: mt.ModelsRejected,
		ModelBytesIn: mt.ModelBytesReceived, ModelBytesOut: mt.ModelBytesSent,
	}
	if ls != nil {
		lv.TransfersFailed = ls.TransfersFailed
		lv.Codec, lv.ModelBytesRaw, lv.ModelBytesWire = ls.Codec, ls.ModelBytesRaw, ls.ModelBytesWire
		lv.ModelsClipped, lv.ModelsBounded, lv.ModelsRefused = ls.ModelsClipped, ls.ModelsBounded, ls.ModelsRefused
		lv.NeighborsDropped, lv.Offenders = ls.NeighborsDropped, ls.Offenders
		lv.Health = ls.Health
		if lv.Method = ls.Method; ls.Method != nil {
			// The driver's trainings (failed ones too), or before its
			// first the learner's, resumed from a saved session.
			lv.Rounds, lv.ModelsSent, lv.ModelsReceived = max(ls.Rounds, mt.Rounds), ls.ModelsSent, ls.ModelsReceived
		}
	}
	if shard > 0 {
		lv.Epoch = float64(mt.SamplesTrained) / float64(shard)
		done := mt.SamplesTrained % int64(shard)
		lv.EpochProgress = float64(done) / float64(shard)
		if done == 0 && mt.SamplesTrained > 0 {
			lv.EpochProgress = 1 // a pass has just ended
		}
	}
	return lv
}

// statusLoop follows the netpeer state, records the training loss of
// each round, and sends the page a status (and the queued log lines)
// twice a second until done closes.
func (b *browserPeer) statusLoop(done <-chan struct{}) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		b.mu.Lock()
		np, lp, state := b.np, b.lp, b.state
		b.mu.Unlock()
		if np != nil && state != "leaving" && state != "failed" {
			if s := np.Status().State; s == "member" || s == "left" || (s == "joining" && state != "loading") {
				b.setState(s)
			}
		}
		if lp != nil {
			mt := lp.Metrics()
			b.mu.Lock()
			if mt.Rounds != b.lastRnd {
				b.lastRnd = mt.Rounds
				b.hist.RoundT = push(b.hist.RoundT, time.Since(b.started).Seconds())
				b.hist.TrainLoss = push(b.hist.TrainLoss, mt.TrainLoss)
			}
			b.mu.Unlock()
		}
		b.snapshot() // the session to keep, between rounds (resume.go)
		b.pushStatus()
	}
}

func (b *browserPeer) pushStatus() {
	b.mu.Lock()
	logs := b.logs
	b.logs = nil
	b.mu.Unlock()
	if len(logs) > 0 {
		b.emit(map[string]any{"type": "log", "lines": logs})
	}
	b.emit(map[string]any{"type": "status", "status": b.status()})
}

// evalLoop evaluates the published model (a method's: its core's) and
// the neighbourhood model (FedLay's MEP only) on the first evalSamples
// test samples every evalEvery, yielding to the page every few
// milliseconds (nn.Model.Evaluate's yield hook).
func (b *browserPeer) evalLoop(done <-chan struct{}) {
	t := time.NewTicker(b.opts.EvalEvery)
	defer t.Stop()
	var model *nn.Model
	var lastPub, lastMixed []float32
	lastFinal := false
	y := newYielder(8 * time.Millisecond)
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		b.mu.Lock()
		np, lp, ds, cfg := b.np, b.lp, b.ds, b.lcfg
		b.mu.Unlock()
		if np == nil || lp == nil || ds == nil || ds.test == nil {
			continue
		}
		pub, mixed, round := lp.Published(), lp.Mixed(), lp.Metrics().Rounds
		final := false
		if ls := np.Status().Learn; ls != nil {
			final = ls.Done // FedLay's too: its MEP's max_rounds
			if ls.Method != nil {
				// A method's model is its core's (PENS's average of the
				// selected, Plexus's aggregated global model), not the
				// last local training; there is no neighbourhood model.
				pub, mixed, round = ls.Model, nil, ls.ModelRound
			}
		}
		// The same model again is not evaluated again, except once the
		// method is done: that evaluation is of its final model.
		if pub == nil || sameSlice(pub, lastPub) && sameSlice(mixed, lastMixed) && (!final || lastFinal) {
			continue
		}
		if model == nil {
			var err error
			if model, err = nn.NewModel(cfg.Arch); err != nil {
				b.reportError(err)
				return
			}
		}
		n := ds.test.Len()
		if b.opts.EvalSamples > 0 {
			n = min(n, b.opts.EvalSamples)
		}
		x, lb := ds.test.X[:n*ds.test.Features()], ds.test.Y[:n]
		t0 := time.Now()
		y.Yield()
		eval := func(params []float32) (nn.Metrics, bool) {
			if tc := b.workerTrainer(); tc != nil && params != nil { // in the trainer worker (trainerview.go)
				m, err := tc.evaluate(cfg.Arch, params, x, lb)
				return m, err == nil
			}
			if params == nil || model.SetParams(params) != nil {
				return nn.Metrics{}, false
			}
			m, err := model.Evaluate(x, lb, 64, y.Maybe)
			return m, err == nil
		}
		mp, ok := eval(pub)
		if !ok {
			continue
		}
		mm, okm := eval(mixed)
		lastPub, lastMixed, lastFinal = pub, mixed, final
		b.mu.Lock()
		h := &b.hist
		h.T = push(h.T, time.Since(b.started).Seconds())
		h.Accuracy, h.Loss = push(h.Accuracy, mp.Accuracy), push(h.Loss, mp.Loss)
		h.lastAcc, h.lastLoss, h.evalRound, h.evalMS, h.evalFinal = mp.Accuracy, mp.Loss, round, float64(time.Since(t0).Microseconds())/1000, final
		if okm {
			h.lastMixed = mm.Accuracy
		}
		h.Neighbors = push(h.Neighbors, h.lastMixed)
		h.evals++
		b.mu.Unlock()
		b.emit(map[string]any{"type": "eval", "accuracy": mp.Accuracy, "loss": mp.Loss, "neighbors_accuracy": h.lastMixed, "round": round})
	}
}

func sameSlice(a, b []float32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
