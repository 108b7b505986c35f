package pushsum

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/internal/datadriven"
	"github.com/peerlearn/peerlearn/types/ident"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of the testdata scripts")

// TestScripts runs the golden scripts in testdata/*.txt. Nodes are named
// by words; a node's ID is IDFromPublicKey(name), so the order of IDs is
// fixed but not alphabetical ("order" prints it).
//
//	new a b c [min= window= tol= max=]  nodes with that Config
//	order                                the nodes by ID, smallest first
//	nbrs a b c                           a's neighbours are b and c
//	tick a b                             a round at a, then b; prints the shares queued
//	deliver                              delivers every queued share, in order
//	step from=b to=a leader=c s= w=      one share, as a transport would hand it over
//	show                                 every node's leader, mass, estimate, phase
func TestScripts(t *testing.T) {
	datadriven.RunGlob(t, "testdata/*.txt", *rewrite, func() func(*testing.T, *datadriven.Cmd) string {
		s := &script{nodes: map[string]*Node{}, names: map[ident.Peer]string{}}
		return s.run
	})
}

type script struct {
	order []string
	nodes map[string]*Node
	names map[ident.Peer]string
	queue []Message
}

func (s *script) id(name string) ident.Peer {
	id := ident.PeerFromPublicKey([]byte(name))
	s.names[id] = name
	return id
}

func (s *script) run(t *testing.T, c *datadriven.Cmd) string {
	out, err := s.exec(c)
	if err != nil {
		return "error: " + err.Error()
	}
	return out
}

func (s *script) node(name string) (*Node, error) {
	if n, ok := s.nodes[name]; ok {
		return n, nil
	}
	return nil, fmt.Errorf("no node %q", name)
}

func (s *script) share(m Message) string {
	return fmt.Sprintf("%s -> %s leader=%s s=%.4f w=%.4f", s.names[m.From], s.names[m.To], s.names[m.Leader], m.S, m.W)
}

func (s *script) exec(c *datadriven.Cmd) (string, error) {
	var b strings.Builder
	switch c.Name {
	case "new":
		for _, name := range c.Args {
			cfg := DefaultConfig(s.id(name))
			for key, dst := range map[string]*int{"min": &cfg.MinRounds, "window": &cfg.Window, "max": &cfg.MaxRounds} {
				if c.Has(key) {
					v, err := strconv.Atoi(c.Get(key, ""))
					if err != nil {
						return "", err
					}
					*dst = v
				}
			}
			if c.Has("tol") {
				v, err := strconv.ParseFloat(c.Get("tol", ""), 64)
				if err != nil {
					return "", err
				}
				cfg.Tol = v
			}
			n, err := New(cfg)
			if err != nil {
				return "", err
			}
			s.nodes[name], s.order = n, append(s.order, name)
		}
	case "order":
		names := append([]string(nil), s.order...)
		ids := map[string]ident.Peer{}
		for _, n := range names {
			ids[n] = s.id(n)
		}
		for i := range names {
			for j := i + 1; j < len(names); j++ {
				if a, z := ids[names[i]], ids[names[j]]; string(z[:]) < string(a[:]) {
					names[i], names[j] = names[j], names[i]
				}
			}
		}
		b.WriteString(strings.Join(names, " < "))
	case "nbrs":
		n, err := s.node(c.Args[0])
		if err != nil {
			return "", err
		}
		var ids []ident.Peer
		for _, a := range c.Args[1:] {
			ids = append(ids, s.id(a))
		}
		n.SetNeighbors(ids)
	case "tick":
		for _, name := range c.Args {
			n, err := s.node(name)
			if err != nil {
				return "", err
			}
			n.Tick()
			for _, m := range n.Ready() {
				s.queue = append(s.queue, m)
				fmt.Fprintln(&b, s.share(m))
			}
		}
	case "deliver":
		q := s.queue
		s.queue = nil
		for _, m := range q {
			if err := s.nodes[s.names[m.To]].Step(m); err != nil {
				fmt.Fprintf(&b, "%s: %v\n", s.share(m), err)
			}
		}
		fmt.Fprintf(&b, "delivered %d", len(q))
	case "step":
		to, err := s.node(c.Get("to", ""))
		if err != nil {
			return "", err
		}
		sv, err1 := strconv.ParseFloat(c.Get("s", "0"), 64)
		wv, err2 := strconv.ParseFloat(c.Get("w", "0"), 64)
		if err1 != nil || err2 != nil {
			return "", fmt.Errorf("s or w: %v %v", err1, err2)
		}
		m := Message{Type: MsgShare, From: s.id(c.Get("from", "")), To: s.id(c.Get("to", "")), Leader: s.id(c.Get("leader", "")), S: sv, W: wv}
		if err := to.Step(m); err != nil {
			return "", err
		}
		b.WriteString("ok")
	case "show":
		for _, name := range s.order {
			n := s.nodes[name]
			sv, wv := n.Mass()
			est, ok := n.Estimate()
			fmt.Fprintf(&b, "%s: leader=%s s=%.4f w=%.4f", name, s.names[n.Leader()], sv, wv)
			if ok {
				fmt.Fprintf(&b, " est=%.3f", est)
			}
			fmt.Fprintf(&b, " rounds=%d", n.Rounds())
			if n.Done() {
				r := n.Result()
				fmt.Fprintf(&b, " done(est=%.3f ok=%v converged=%v rounds=%d)", r.Estimate, r.OK, r.Converged, r.Rounds)
			}
			st := n.Stats()
			fmt.Fprintf(&b, " sent=%d recv=%d stale=%d restarts=%d refused=%d\n", st.Sent, st.Received, st.Stale, st.Restarts, st.Refused)
		}
	default:
		return "", fmt.Errorf("unknown command %q", c.Name)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
