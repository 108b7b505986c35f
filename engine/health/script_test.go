package health

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

// TestHealthScripts runs testdata/*.txt against a Monitor. Commands:
//
//	new [ratio=0.5] [quorum=0.5] [patience=2] [recover=3] [cooldown=5] [classes=10] [best]
//	                                  the default config, changed as given
//	                                  (classes: ForClasses; best:
//	                                  AgainstBest)
//	observe self=0.9 nbrs=a:0.8,b:0.1:4.5,c:0.9:0.1:0.01
//	                                  one round's scores
//	                                  (name:score[:loss[:near]]); prints the
//	                                  verdict
//	status                            the counters /status would show
func TestHealthScripts(t *testing.T) {
	datadriven.RunGlob(t, "testdata/*.txt", *rewrite, func() func(*testing.T, *datadriven.Cmd) string {
		s := &healthScript{names: map[ident.Peer]string{}}
		return s.run
	})
}

type healthScript struct {
	m     *Monitor
	names map[ident.Peer]string
}

func (s *healthScript) id(n string) ident.Peer {
	id := ident.PeerFromPublicKey([]byte(n))
	s.names[id] = n
	return id
}

func (s *healthScript) list(ids []ident.Peer) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = s.names[id]
	}
	return "[" + strings.Join(out, " ") + "]"
}

func (s *healthScript) run(t *testing.T, c *datadriven.Cmd) string {
	if c.Name != "new" && s.m == nil {
		t.Fatalf("line %d: %s before new", c.Line, c.Name)
	}
	out, err := s.exec(c)
	if err != nil {
		out = "error: " + err.Error()
		for id, n := range s.names {
			out = strings.ReplaceAll(out, id.String(), n)
		}
	}
	return out
}

func (s *healthScript) exec(c *datadriven.Cmd) (string, error) {
	switch c.Name {
	case "new":
		cfg := DefaultConfig()
		for key, dst := range map[string]*float64{"ratio": &cfg.Ratio, "quorum": &cfg.Quorum, "echo": &cfg.EchoBelow} {
			if c.Has(key) {
				v, err := strconv.ParseFloat(c.Get(key, ""), 64)
				if err != nil {
					return "", err
				}
				*dst = v
			}
		}
		for key, dst := range map[string]*int{"patience": &cfg.Patience, "recover": &cfg.Recover, "cooldown": &cfg.Cooldown} {
			if c.Has(key) {
				v, err := strconv.Atoi(c.Get(key, ""))
				if err != nil {
					return "", err
				}
				*dst = v
			}
		}
		cfg.AgainstBest = c.Has("best")
		if c.Has("classes") {
			k, err := strconv.Atoi(c.Get("classes", ""))
			if err != nil {
				return "", err
			}
			cfg = cfg.ForClasses(k)
		}
		m, err := New(cfg)
		if err != nil {
			return "", err
		}
		s.m = m
		out := fmt.Sprintf("ratio %g quorum %g patience %d recover %d cooldown %d loss cap %.3f echo below %g", cfg.Ratio, cfg.Quorum, cfg.Patience, cfg.Recover, cfg.Cooldown, cfg.LossCap, cfg.EchoBelow)
		if cfg.AgainstBest {
			out += " against best"
		}
		return out, nil
	case "observe":
		self, err := strconv.ParseFloat(c.Get("self", ""), 64)
		if err != nil {
			return "", err
		}
		var nbrs []Score
		if l := c.Get("nbrs", ""); l != "" {
			for _, p := range strings.Split(l, ",") {
				f := strings.Split(p, ":")
				if len(f) < 2 || len(f) > 4 {
					return "", fmt.Errorf("neighbour %q is not name:score[:loss[:near]]", p)
				}
				sc := Score{Peer: s.id(f[0])}
				if sc.Acc, err = strconv.ParseFloat(f[1], 64); err != nil {
					return "", err
				}
				if len(f) >= 3 {
					if sc.Loss, err = strconv.ParseFloat(f[2], 64); err != nil {
						return "", err
					}
				}
				if len(f) == 4 {
					if sc.Near, err = strconv.ParseFloat(f[3], 64); err != nil {
						return "", err
					}
					sc.NearKnown = true
				}
				nbrs = append(nbrs, sc)
			}
		}
		v, err := s.m.Observe(self, nbrs)
		if err != nil {
			return "", err
		}
		out := fmt.Sprintf("%v disagree=%s trusted=%s", v.State, s.list(v.Disagree), s.list(v.Trusted))
		if v.Replace {
			out += " replace"
		}
		return out, nil
	case "status":
		st := s.m.Status()
		return fmt.Sprintf("%v rounds=%d alarming=%d captures=%d replacements=%d last: self=%.2f neighbours=%d disagree=%d",
			st.State, st.Rounds, st.Alarming, st.Captures, st.Replacements, st.Self, st.Neighbours, st.Disagree), nil
	}
	return "", fmt.Errorf("unknown command %q", c.Name)
}
