package node

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/internal/datadriven"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestNodeScripts runs the golden scripts testdata/node-*.txt: a few
// Nodes on virtual time, wired by an in-memory network that delivers
// what each Ready sends (a first message between two peers opens their
// link: LinkUp on both sides). Commands:
//
//	new spaces=2 after=5s every=0s alone=when-split seed=1 servers=s
//	                       a fresh network; the Registrar settings every
//	                       peer gets
//	peer NAME [contacts=a,b] [estimate] [learn=METHOD] [max-rounds=N] [eval=D]
//	                       a Node registered with the first server,
//	                       joining through contacts (none: founding);
//	                       with learn, a learning peer of a small task
//	                       (synthetic data, a 1 s period) in METHOD
//	                       whose core the Node drives: its messages are
//	                       delivered like the overlay's, its trainings
//	                       run at once and come back with TrainDone;
//	                       with eval, its model is evaluated every D
//	                       (target accuracy 0.9), finding what the last
//	                       accuracy command said
//	tick by=100ms [times=N]
//	                       ticks every live Node, then delivers until
//	                       nothing is left; prints each line a Node logs
//	                       (rated ones marked), each Dial, each
//	                       Decision, each training handed out and the
//	                       models sent, with the time
//	kill NAME              the peer stops: its messages are lost, its
//	                       links close (LinkDown at the other end)
//	cut a,b | heal         messages between the two groups of the
//	                       cut are lost (links stay up)
//	registered NAME seq=N url=s [err=...] [contacts=x,y]
//	                       a dial's outcome
//	inject NAME from=X [forge=Y]
//	                       an overlay message from X: garbage, or a
//	                       heartbeat that claims to be from Y
//	accuracy V             what the evaluations find from now on
//	message NAME from=X    a method message from X that no core reads
//	show NAME              the Node's state
//	overlay [a,b,...]      whether the live Nodes' tables (or those
//	                       named) are the correct overlay of their IDs
//	replace NAME           the neighbourhood check asks NAME for a new
//	                       placement (what FedLay's OnReplace hands the
//	                       Node): the Node's move decision
//	move NAME to=NEW [contacts=x,y] [err=...]
//	                       the shell's outcome of NAME's MoveRequest: a
//	                       refused admission (err), or the new place: NAME
//	                       leaves, and NEW (its new ID) joins through the
//	                       contacts with NAME's learner and Carry
//
// new takes move-max=N move-every=D too: every peer's MoveConfig.
//
// Peers are named by words (their IDs the hash of the word).
func TestNodeScripts(t *testing.T) {
	datadriven.RunGlob(t, "testdata/node-*.txt", *rewrite, func() func(*testing.T, *datadriven.Cmd) string {
		s := &netScript{}
		return s.run
	})
}

type netScript struct {
	now   time.Duration // since scriptEpoch
	cfg   Config
	cfgs  map[string]Config // each peer's, as built
	seed  uint64
	nodes map[string]*Node
	names map[ident.Peer]string
	links map[[2]string]bool
	cut   map[string]bool // one side of the cut (nil: none)
	out   []string
	acc   float64 // what the script's evaluations find (accuracy)
}

func (s *netScript) id(name string) ident.Peer {
	id := ident.PeerFromPublicKey([]byte(name))
	s.names[id] = name
	return id
}

func (s *netScript) name(id ident.Peer) string {
	if n, ok := s.names[id]; ok {
		return n
	}
	return id.String()
}

func (s *netScript) nameList(ids []ident.Peer) string {
	if len(ids) == 0 {
		return "-"
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = s.name(id)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

func (s *netScript) live() []string {
	var out []string
	for n := range s.nodes {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (s *netScript) run(t *testing.T, c *datadriven.Cmd) string {
	if c.Name != "new" && s.nodes == nil {
		t.Fatalf("line %d: %s before new", c.Line, c.Name)
	}
	out, err := s.exec(c)
	if err != nil {
		return "error: " + err.Error()
	}
	return out
}

func (s *netScript) at() string {
	return "t=" + s.now.String()
}

func (s *netScript) exec(c *datadriven.Cmd) (string, error) {
	switch c.Name {
	case "new":
		mode := map[string]BridgeMode{"when-split": BridgeWhenSplit, "always": BridgeAlways, "never": BridgeNever}[c.Get("alone", "when-split")]
		ov := overlay.DefaultConfig()
		ov.Spaces = int(num(c, "spaces", "2"))
		s.cfg = Config{Overlay: ov, Registrar: RegistrarConfig{
			Servers: strings.Split(c.Get("servers", "s"), ","), RebootstrapAfter: dur(c, "after", "5s"),
			BridgeEvery: dur(c, "every", "0s"), BridgeAlone: mode,
		}, Move: MoveConfig{Max: int(num(c, "move-max", "0")), Every: dur(c, "move-every", "0s")}}
		s.seed = num(c, "seed", "1")
		s.now = 0
		s.nodes, s.names, s.links, s.cut = map[string]*Node{}, map[ident.Peer]string{}, map[[2]string]bool{}, nil
		s.cfgs = map[string]Config{}
		return "ok", nil
	case "peer":
		name := c.Args[0]
		cfg := s.cfg
		cfg.ID = s.id(name)
		cfg.Server = cfg.Registrar.Servers[0]
		cfg.Overlay.Rand = rand.New(rand.NewPCG(s.seed, cfg.ID.Seed()))
		cfg.Registrar.Rand = rand.New(rand.NewPCG(s.seed, cfg.ID.Seed()+1))
		cfg.SizeEstimate = slices.Contains(c.Args, "estimate")
		if m := c.Get("learn", ""); m != "" {
			meth, err := scriptMethod(cfg.ID, m, int(num(c, "max-rounds", "0")), cfg.SizeEstimate)
			if err != nil {
				return "", err
			}
			cfg.Method = meth
			cfg.EvalEvery, cfg.Target = dur(c, "eval", "0s"), 0.9
		}
		cfg.Blocked = func(id ident.Peer) bool { return s.cutBetween(name, s.name(id)) }
		for _, n := range strings.Split(c.Get("contacts", ""), ",") {
			if n != "" {
				cfg.Contacts = append(cfg.Contacts, s.id(n))
			}
		}
		n, err := New(cfg, scriptEpoch.Add(s.now))
		if err != nil {
			return "", err
		}
		s.nodes[name], s.cfgs[name] = n, cfg
		s.out = nil
		s.deliver()
		return strings.Join(append(s.out, "ok"), "\n"), nil
	case "replace":
		n, ok := s.nodes[c.Args[0]]
		if !ok {
			return "", fmt.Errorf("no peer %s", c.Args[0])
		}
		s.out = nil
		if err := n.Step(ReplaceAsked{Why: "the check asked"}); err != nil {
			return "", err
		}
		s.deliver()
		return strings.Join(s.out, "\n"), nil
	case "move":
		return s.move(c)
	case "tick":
		by := dur(c, "by", "100ms")
		s.out = nil
		for range num(c, "times", "1") {
			s.now += by
			for _, name := range s.live() {
				s.nodes[name].Tick(scriptEpoch.Add(s.now))
			}
			s.deliver()
		}
		return strings.Join(append(s.out, s.at()), "\n"), nil
	case "kill":
		s.out = nil
		if err := s.kill(c.Args[0]); err != nil {
			return "", err
		}
		s.deliver()
		return strings.Join(append(s.out, "ok"), "\n"), nil
	case "cut":
		s.cut = map[string]bool{}
		for _, n := range strings.Split(c.Args[0], ",") {
			s.cut[n] = true
		}
		return "ok", nil
	case "heal":
		s.cut = nil
		return "ok", nil
	case "registered":
		n, ok := s.nodes[c.Args[0]]
		if !ok {
			return "", fmt.Errorf("no peer %s", c.Args[0])
		}
		why := map[string]Why{"rebootstrap": Rebootstrap, "bridge": Bridge, "renew": Renew}[c.Get("why", "rebootstrap")]
		o := Outcome{Why: why, URL: c.Get("url", "")}
		if e := c.Get("err", ""); e != "" {
			o.Err = errors.New(e)
		}
		for _, x := range strings.Split(c.Get("contacts", ""), ",") {
			if x != "" {
				o.Contacts = append(o.Contacts, s.id(x))
			}
		}
		s.out = nil
		if err := n.Step(Registered{Seq: num(c, "seq", "1"), Outcome: o}); err != nil {
			return "", err
		}
		s.deliver()
		return strings.Join(s.out, "\n"), nil
	case "inject":
		n, ok := s.nodes[c.Args[0]]
		if !ok {
			return "", fmt.Errorf("no peer %s", c.Args[0])
		}
		data := []byte("garbage")
		if f := c.Get("forge", ""); f != "" {
			b, err := overlay.Marshal(overlay.Message{Type: overlay.MsgHeartbeat, From: s.id(f), To: n.ID()})
			if err != nil {
				return "", err
			}
			data = b
		}
		s.out = nil
		if err := n.Step(OverlayMessage{From: s.id(c.Get("from", "")), Data: data}); err != nil {
			return "", err
		}
		s.deliver()
		return strings.Join(append(s.out, fmt.Sprintf("refused=%d", n.Refused())), "\n"), nil
	case "accuracy":
		v, err := strconv.ParseFloat(c.Args[0], 64)
		s.acc = v
		return "ok", err
	case "message":
		n, ok := s.nodes[c.Args[0]]
		if !ok || n.Method() == nil {
			return "", fmt.Errorf("no learning peer %s", c.Args[0])
		}
		s.out = nil
		if err := n.Step(ModelMessage{From: s.id(c.Get("from", "")), Header: []byte("garbage")}); err != nil {
			return "", err
		}
		s.deliver()
		return strings.Join(append(s.out, fmt.Sprintf("refused=%d", n.Method().Refused())), "\n"), nil
	case "show":
		n, ok := s.nodes[c.Args[0]]
		if !ok {
			return "", fmt.Errorf("no peer %s", c.Args[0])
		}
		reb, br, server := n.Registrations()
		line := fmt.Sprintf("joined=%v nbrs=%s refused=%d removed=%d rebootstraps=%d bridges=%d server=%s training=%v",
			n.Joined(), s.nameList(n.Neighbors()), n.Refused(), n.Removed(), reb, br, server, n.Training())
		if m := n.Method(); m != nil {
			st := m.Core().Status()
			line += fmt.Sprintf("\nmethod %s rounds=%d sent=%d received=%d refused=%d role=%s", m.Name(), m.RoundsDone(), st.ModelsSent, st.ModelsReceived, m.Refused(), st.Role)
			if e := n.Evaluation(); e.Evals > 0 {
				line += fmt.Sprintf("\nevaluations=%d accuracy=%.2f at round %d target %.2f reached=%v final=%v", e.Evals, e.Accuracy, e.Round, e.Target, e.TargetReached, e.Final)
			}
		}
		if mv := n.Moves(); mv.Asked > 0 {
			line += fmt.Sprintf("\nmoves asked=%d tries=%d moves=%d failed=%d refused=%v previous=%d moving=%v", mv.Asked, mv.Tries, mv.Moves, mv.Failed, mv.Refused, len(mv.Previous), n.Moving())
		}
		if g := n.InitGain(); g != nil {
			line += fmt.Sprintf("\ninit gain: %s used=%.0f gain=%.3f", g.State, g.Used, g.Gain)
		}
		return line, nil
	case "overlay":
		tables := map[ident.Peer]overlay.Table{}
		names := s.live()
		if len(c.Args) > 0 {
			names = strings.Split(c.Args[0], ",")
		}
		for _, name := range names {
			if _, ok := s.nodes[name]; !ok {
				return "", fmt.Errorf("no peer %s", name)
			}
			tables[s.nodes[name].ID()] = s.nodes[name].Table()
		}
		cr := overlay.Check(tables, s.cfg.Overlay.Spaces)
		return fmt.Sprintf("correct=%v nodes=%d neighbours %d/%d extra=%d wrong-slots=%d", cr.OK(), cr.Nodes, cr.Correct, cr.Expected, cr.Extra, cr.WrongSlots), nil
	}
	return "", fmt.Errorf("unknown command %q", c.Name)
}

// kill stops peer name: its links close (LinkDown at the other end).
func (s *netScript) kill(name string) error {
	delete(s.nodes, name)
	for _, other := range s.live() {
		if s.links[key(name, other)] {
			delete(s.links, key(name, other))
			if err := s.nodes[other].Step(LinkDown{Peer: s.id(name)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// move carries out a MoveRequest's outcome as netpeer's shell does
// (move.go there): on success the old place's Node leaves, its links
// close once the Leave messages are out, and the new place's Node
// joins with the old one's learner (Method.Moved) and Carry.
func (s *netScript) move(c *datadriven.Cmd) (string, error) {
	name := c.Args[0]
	n, ok := s.nodes[name]
	if !ok {
		return "", fmt.Errorf("no peer %s", name)
	}
	s.out = nil
	if e := c.Get("err", ""); e != "" {
		if err := n.Step(MoveDone{Err: errors.New(e)}); err != nil {
			return "", err
		}
		s.deliver()
		return strings.Join(s.out, "\n"), nil
	}
	to := c.Get("to", "")
	newID := s.id(to)
	if err := n.Step(MoveDone{ID: newID}); err != nil {
		return "", err
	}
	carry := n.Carry()
	if err := n.Leave(); err != nil {
		return "", err
	}
	s.deliver()
	if err := s.kill(name); err != nil {
		return "", err
	}
	cfg := s.cfgs[name]
	cfg.ID, cfg.Carried, cfg.Contacts = newID, &carry, nil
	cfg.Overlay.Rand = rand.New(rand.NewPCG(s.seed, newID.Seed()))
	cfg.Blocked = func(id ident.Peer) bool { return s.cutBetween(to, s.name(id)) }
	if m := cfg.Method; m != nil {
		if err := m.Moved(newID); err != nil {
			return "", err
		}
	}
	for _, x := range strings.Split(c.Get("contacts", ""), ",") {
		if x != "" {
			cfg.Contacts = append(cfg.Contacts, s.id(x))
		}
	}
	nn, err := New(cfg, scriptEpoch.Add(s.now))
	if err != nil {
		return "", err
	}
	s.nodes[to], s.cfgs[to] = nn, cfg
	s.deliver()
	return strings.Join(append(s.out, "ok"), "\n"), nil
}

func key(a, b string) [2]string {
	if a > b {
		a, b = b, a
	}
	return [2]string{a, b}
}

// cutBetween reports whether the cut separates a and b.
func (s *netScript) cutBetween(a, b string) bool {
	return s.cut != nil && s.cut[a] != s.cut[b]
}

// deliver hands every Node's Ready to the network until nothing is left
// (bounded: a script that loops forever fails).
func (s *netScript) deliver() {
	for round := 0; ; round++ {
		if round > 1000 {
			panic("deliver: the Nodes never settle")
		}
		busy := false
		for _, name := range s.live() {
			n := s.nodes[name]
			if !n.HasReady() {
				continue
			}
			busy = true
			s.carryOut(name, n, n.Ready())
		}
		if !busy {
			return
		}
	}
}

func (s *netScript) carryOut(name string, n *Node, rd Ready) {
	for _, l := range rd.Logs {
		mark := ""
		if l.Rated {
			mark = " (rated)"
		}
		s.out = append(s.out, fmt.Sprintf("%s %s: %s%s", s.at(), name, s.renamed(l.Text), mark))
	}
	for _, d := range rd.Dials {
		s.out = append(s.out, fmt.Sprintf("%s %s -> dial %v %s (seq %d)", s.at(), name, d.Why, strings.Join(d.URLs, ","), d.Seq))
	}
	for _, d := range rd.Decisions {
		s.out = append(s.out, fmt.Sprintf("%s %s -> decision seq %d adopt=%v", s.at(), name, d.Seq, d.Adopt))
	}
	if len(rd.ModelSends) > 0 {
		var to []ident.Peer
		models := 0
		for _, m := range rd.ModelSends {
			to = append(to, m.To)
			if m.Params != nil {
				models++
			}
		}
		s.out = append(s.out, fmt.Sprintf("%s %s -> %d messages (%d models) to %s", s.at(), name, len(rd.ModelSends), models, s.nameList(slices.Compact(to))))
	}
	for _, m := range rd.ModelSends {
		if to := s.name(m.To); s.open(name, to) {
			var params []float32
			if m.Params != nil {
				params = append(slices.Clone(m.Params), m.Rest...)
			}
			s.must(s.nodes[to].Step(ModelMessage{From: n.ID(), Header: m.Header, Params: params}))
		}
	}
	if e := rd.Evaluate; e != nil {
		s.out = append(s.out, fmt.Sprintf("%s %s -> evaluate round %d: accuracy %.2f", s.at(), name, e.Round, s.acc))
		s.must(n.Step(Evaluated{Round: e.Round, Accuracy: s.acc, Loss: 1 - s.acc}))
	}
	if rd.Move != nil {
		s.out = append(s.out, fmt.Sprintf("%s %s -> move (%s)", s.at(), name, rd.Move.Why))
	}
	if rd.Train != nil {
		s.out = append(s.out, fmt.Sprintf("%s %s -> train", s.at(), name))
		rd.Train.Run() // at once: the script's trainings take no virtual time
		s.must(n.Step(TrainDone{Job: rd.Train, Elapsed: 0}))
	}
	for _, e := range rd.Overlay {
		if to := s.name(e.To); s.open(name, to) {
			s.must(s.nodes[to].Step(OverlayMessage{From: n.ID(), Data: e.Data}))
		}
	}
	for _, sh := range rd.Shares {
		if to := s.name(sh.To); s.open(name, to) {
			s.must(s.nodes[to].Step(PushSumShare{From: n.ID(), Data: sh.Data}))
		} else {
			s.must(n.Step(ShareReturned{Share: sh})) // the transport refused it: its mass stays here
		}
	}
}

// open reports whether a message from a can reach b, opening their link
// on the first (the transport connects on a first send).
func (s *netScript) open(a, b string) bool {
	if _, ok := s.nodes[b]; !ok {
		return false
	}
	if !s.links[key(a, b)] {
		s.links[key(a, b)] = true
		s.must(s.nodes[a].Step(LinkUp{Peer: s.id(b)}))
		s.must(s.nodes[b].Step(LinkUp{Peer: s.id(a)}))
	}
	return true
}

func (s *netScript) must(err error) {
	if err != nil {
		panic(err)
	}
}

// renamed replaces the short IDs in a log line by the peers' names.
func (s *netScript) renamed(line string) string {
	for id, name := range s.names {
		line = strings.ReplaceAll(line, id.String(), name)
	}
	return line
}

// scriptMethod is a learning peer of a small task in method m (as a real
// peer builds it: LearnerConfig, learn.NewPeer, NewMethod) on a synthetic
// shard drawn from id.
func scriptMethod(id ident.Peer, m string, maxRounds int, estimate bool) (*Method, error) {
	spec := task.DefaultSpec()
	spec.Name, spec.Method, spec.PeriodMS, spec.LocalEpochs, spec.LocalSteps, spec.Batch, spec.MaxRounds = "node-script", m, 1000, 0, 1, 16, maxRounds
	if m != "fedlay" {
		spec.Aggregator = "mean" // the method mixes by its own weights
	}
	if estimate {
		spec.Init = task.Init{Mode: "he-gain"}
	}
	syn := data.NewSynthetic(rand.New(rand.NewPCG(99, 99)), [3]int{28, 28, 1}, 10, 0.3)
	train := syn.Draw(rand.New(rand.NewPCG(id.Seed(), 7)), 64, syn.Cycle)
	lc, err := LearnerConfig(spec, id, train, 100*time.Millisecond)
	if err != nil {
		return nil, err
	}
	lp, err := learn.NewPeer(lc, train)
	if err != nil {
		return nil, err
	}
	return NewMethod(spec, lp, 100*time.Millisecond, nil)
}
