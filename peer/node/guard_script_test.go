package node

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/internal/datadriven"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/types/ident"
)

// trustOf is the guard's view of an engine Reputation, as learn.Peer
// gives it (Score, ShouldDrop, Forget).
type trustOf struct{ r *aggregate.Reputation }

func (t trustOf) Reputation(id ident.Peer) float64 { return t.r.Score(id) }
func (t trustOf) ShouldDrop(id ident.Peer) bool    { return t.r.ShouldDrop(id) }
func (t trustOf) Forgive(id ident.Peer)            { t.r.Forget(id) }

// TestGuardScripts runs testdata/guard-*.txt against the Guard and the
// engine's Reputation (the one learn.Peer updates after each
// aggregation), on virtual time. Commands:
//
//	new period=1s [min-witnesses=4]     the default reputation otherwise
//	round by=1s nbrs=x,y,z,w refused=x:nonfinite clipped=y:0.9 flagged=z:0.7
//	                                   one aggregation's report: the
//	                                   reputation observes it, then the
//	                                   guard; the ones it says to drop are
//	                                   dropped (as the learner does)
//	refused-dropped x                  a message from a dropped neighbour
//	expire by=1s                       the clock moves; who is let back
//	offenders                          the status's list
//
// Every command prints the log lines it caused.
func TestGuardScripts(t *testing.T) {
	datadriven.RunGlob(t, "testdata/guard-*.txt", *rewrite, func() func(*testing.T, *datadriven.Cmd) string {
		s := &guardScript{names: map[ident.Peer]string{}}
		return s.run
	})
}

type guardScript struct {
	g     *Guard
	rep   *aggregate.Reputation
	now   time.Time
	log   []string
	names map[ident.Peer]string
}

func (s *guardScript) id(n string) ident.Peer {
	id := ident.PeerFromPublicKey([]byte(n))
	s.names[id] = n
	return id
}

// logf names peers by their script names.
func (s *guardScript) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	for id, n := range s.names {
		line = strings.ReplaceAll(line, id.String(), n)
	}
	s.log = append(s.log, "log: "+line)
}

func (s *guardScript) run(t *testing.T, c *datadriven.Cmd) string {
	if c.Name != "new" && s.g == nil {
		t.Fatalf("line %d: %s before new", c.Line, c.Name)
	}
	s.log = nil
	out, err := s.exec(c)
	if err != nil {
		out = "error: " + err.Error()
	}
	return strings.Join(append(s.log, out), "\n")
}

// pairs parses "x:v,y:w".
func pairs(list string) [][2]string {
	var out [][2]string
	for _, p := range strings.Split(list, ",") {
		if k, v, ok := strings.Cut(p, ":"); ok {
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

func (s *guardScript) exec(c *datadriven.Cmd) (string, error) {
	switch c.Name {
	case "new":
		rc := aggregate.DefaultReputationConfig()
		if c.Has("min-witnesses") {
			rc.MinWitnesses = int(num(c, "min-witnesses", "4"))
		}
		rep, err := aggregate.NewReputation(rc)
		if err != nil {
			return "", err
		}
		s.rep, s.now = rep, scriptEpoch
		s.g = NewGuard(trustOf{rep}, rc, dur(c, "period", "1s"), s.logf)
		return fmt.Sprintf("ban for %v", s.g.BanFor()), nil
	case "round":
		s.now = s.now.Add(dur(c, "by", "1s"))
		var others []aggregate.Contribution
		index := map[string]int{}
		for _, n := range strings.Split(c.Get("nbrs", ""), ",") {
			if n != "" {
				index[n] = len(others)
				others = append(others, aggregate.Contribution{From: s.id(n)})
			}
		}
		var r aggregate.Report
		for _, p := range pairs(c.Get("refused", "")) {
			err := map[string]error{"nonfinite": aggregate.ErrNonFinite, "arch": aggregate.ErrArch, "length": aggregate.ErrLength,
				"screened": learn.ErrScreened}[p[1]]
			if err == nil {
				err = errors.New(p[1])
			}
			r.Refused = append(r.Refused, aggregate.Refusal{Index: index[p[0]], From: s.id(p[0]), Err: err})
		}
		for kind, action := range map[string]aggregate.OutlierAction{"clipped": aggregate.OutlierCut, "flagged": aggregate.OutlierFlagged, "left-out": aggregate.OutlierLeftOut} {
			for _, p := range pairs(c.Get(kind, "")) {
				sev, err := strconv.ParseFloat(p[1], 64)
				if err != nil {
					return "", err
				}
				r.Outliers = append(r.Outliers, aggregate.Outlier{Index: index[p[0]], From: s.id(p[0]), Severity: sev, Action: action})
			}
		}
		s.rep.Observe(others, r)
		drop := s.g.Observe(r, s.now)
		var names []string
		for _, id := range drop {
			s.g.Drop(id, s.now)
			names = append(names, s.names[id])
		}
		var scores []string
		for _, n := range strings.Split(c.Get("nbrs", ""), ",") {
			if n != "" {
				scores = append(scores, fmt.Sprintf("%s=%.2f", n, s.rep.Score(s.id(n))))
			}
		}
		return fmt.Sprintf("t=%v reputation %s; dropped [%s]", s.now.Sub(scriptEpoch), strings.Join(scores, " "), strings.Join(names, ",")), nil
	case "refused-dropped":
		id := s.id(c.Args[0])
		if !s.g.Dropped(id, s.now) {
			return "not dropped: nothing counted", nil
		}
		s.g.RefusedDropped(id)
		return fmt.Sprintf("refused %v", s.g.Refused()), nil
	case "expire":
		s.now = s.now.Add(dur(c, "by", "1s"))
		var names []string
		for _, id := range s.g.Expire(s.now) {
			names = append(names, s.names[id])
		}
		return fmt.Sprintf("t=%v back [%s]", s.now.Sub(scriptEpoch), strings.Join(names, ",")), nil
	case "offenders":
		var lines []string
		for _, o := range s.g.Offenders(s.now) {
			n := o.ID[:8]
			for id, name := range s.names {
				if fmt.Sprintf("%x", id[:]) == o.ID {
					n = name
				}
			}
			lines = append(lines, fmt.Sprintf("%s clipped=%d refused=%v reputation=%.2f dropped_s=%.0f", n, o.Clipped, o.Refused, o.Reputation, o.DroppedS))
		}
		lines = append(lines, fmt.Sprintf("drops=%d", s.g.Drops()))
		return strings.Join(lines, "\n"), nil
	}
	return "", fmt.Errorf("unknown command %q", c.Name)
}
