package node

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/datadriven"
	"github.com/peerlearn/peerlearn/types/ident"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of the testdata scripts")

// TestRegistrarScripts runs the golden scripts testdata/registrar-*.txt
// against the Registrar on virtual time. Commands:
//
//	new servers=a,b after=5s every=60s alone=when-split welcomed=3 seed=1
//	peer joined nbrs=x,y conns=2 remembered=0 notback=0 renew left
//	    (sets what the next ticks see; names missing are false/empty/0)
//	joining                 the first welcome's contacts are being joined
//	tick by=1s [times=N]    advances the clock, ticks N times (default 1),
//	                        prints each Dial as "-> dial WHY URLS: LOG"
//	outcome why=rebootstrap url=a err=... contacts=p,q
//	                        feeds a dial's outcome, prints the Decision
//
// Peers are named by words (their IDs the hash of the word).
func TestRegistrarScripts(t *testing.T) {
	datadriven.RunGlob(t, "testdata/registrar-*.txt", *rewrite, func() func(*testing.T, *datadriven.Cmd) string {
		s := &registrarScript{names: map[ident.Peer]string{}}
		return s.run
	})
}

var scriptEpoch = time.Unix(1_700_000_000, 0)

type registrarScript struct {
	r     *Registrar
	now   time.Time
	facts Facts
	names map[ident.Peer]string
}

func (s *registrarScript) ids(list string) []ident.Peer {
	var out []ident.Peer
	for _, n := range strings.Split(list, ",") {
		if n != "" {
			id := ident.PeerFromPublicKey([]byte(n))
			s.names[id] = n
			out = append(out, id)
		}
	}
	return out
}

func (s *registrarScript) nameList(ids []ident.Peer) string {
	if len(ids) == 0 {
		return "-"
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = s.names[id]
	}
	return strings.Join(out, ",")
}

func (s *registrarScript) run(t *testing.T, c *datadriven.Cmd) string {
	if c.Name != "new" && s.r == nil {
		t.Fatalf("line %d: %s before new", c.Line, c.Name)
	}
	out, err := s.exec(c)
	if err != nil {
		return "error: " + err.Error()
	}
	return out
}

func dur(c *datadriven.Cmd, key, def string) time.Duration {
	d, err := time.ParseDuration(c.Get(key, def))
	if err != nil {
		panic(fmt.Sprintf("line %d: %s: %v", c.Line, key, err))
	}
	return d
}

func num(c *datadriven.Cmd, key, def string) uint64 {
	n, err := strconv.ParseUint(c.Get(key, def), 10, 64)
	if err != nil {
		panic(fmt.Sprintf("line %d: %s: %v", c.Line, key, err))
	}
	return n
}

func (s *registrarScript) at() string { return "t=" + s.now.Sub(scriptEpoch).String() }

func (s *registrarScript) exec(c *datadriven.Cmd) (string, error) {
	switch c.Name {
	case "new":
		mode := map[string]BridgeMode{"when-split": BridgeWhenSplit, "always": BridgeAlways, "never": BridgeNever}[c.Get("alone", "when-split")]
		cfg := RegistrarConfig{
			Servers:          strings.Split(c.Get("servers", "a"), ","),
			RebootstrapAfter: dur(c, "after", "5s"),
			BridgeEvery:      dur(c, "every", "60s"),
			BridgeAlone:      mode,
			Rand:             rand.New(rand.NewPCG(num(c, "seed", "1"), 2)),
		}
		s.now = scriptEpoch
		s.facts = Facts{}
		r, err := NewRegistrar(cfg, cfg.Servers[0], int(num(c, "welcomed", "0")))
		if err != nil {
			return "", err
		}
		s.r = r
		return "ok", nil
	case "peer":
		has := func(w string) bool { return slices.Contains(c.Args, w) }
		s.facts = Facts{Left: has("left"), Joined: has("joined"), Neighbors: s.ids(c.Get("nbrs", "")),
			Connections: int(num(c, "conns", "0")), Remembered: num(c, "remembered", "0"), NotBack: int(num(c, "notback", "0")),
			RenewalDue: has("renew")}
		return "ok", nil
	case "joining":
		s.r.Joining()
		return "ok", nil
	case "tick":
		by := dur(c, "by", "1s")
		var out []string
		for range num(c, "times", "1") {
			s.now = s.now.Add(by)
			f := s.facts
			f.Now = s.now
			if d, log := s.r.Tick(f); d != nil {
				line := fmt.Sprintf("%s -> dial %v %s", s.at(), d.Why, strings.Join(d.URLs, ","))
				if log != "" {
					line += ": " + log
				}
				out = append(out, line)
			}
		}
		out = append(out, s.at())
		return strings.Join(out, "\n"), nil
	case "outcome":
		why := map[string]Why{"rebootstrap": Rebootstrap, "bridge": Bridge, "renew": Renew}[c.Get("why", "")]
		o := Outcome{Why: why, URL: c.Get("url", ""), Contacts: s.ids(c.Get("contacts", ""))}
		if e := c.Get("err", ""); e != "" {
			o.Err = errors.New(e)
		}
		f := s.facts
		f.Now = s.now
		d := s.r.Registered(o, f)
		reb, br := s.r.Stats()
		return fmt.Sprintf("adopt=%v check-token=%v join=%s current=%s rebootstraps=%d bridges=%d\n%s",
			d.Adopt, d.CheckToken, s.nameList(d.Join), s.r.Current(), reb, br, d.Log), nil
	}
	return "", fmt.Errorf("unknown command %q", c.Name)
}
